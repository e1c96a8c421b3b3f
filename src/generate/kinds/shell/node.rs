//! Node package installs: `npm install` (warnings, audit summary, errors) and `pnpm install` (progress and the
//! dependency summary).

use super::{header, paint, Exit};
use crate::generate::buf::TextBuf;
use crate::generate::vocab::{self, PROJECTS};
use crate::needles::NeedleKind;
use crate::rng::Stream;

const NPM_PACKAGES: &[&str] = &[
    "glob-lite",
    "rimraf-compat",
    "fs-extra-legacy",
    "string-width-cjs",
    "uuid-v3",
    "querystring-es",
    "request-promise-lite",
    "core-shim",
    "left-trim",
    "babel-preset-old",
    "har-checker",
    "sane-watch",
    "domexception-shim",
    "abab-lite",
    "stable-sort",
    "urix-compat",
    "source-map-resolve-lite",
];

const NPM_REASONS: &[&str] = &[
    "Versions prior to v9 are no longer maintained; please upgrade",
    "This package is no longer supported. Use the platform's native implementation instead",
    "Please use a maintained fork; this release line receives no security fixes",
    "Use the built-in structuredClone() instead",
    "This module has been merged into its parent package",
];

pub(super) fn npm_install(rng: &mut Stream, b: &mut TextBuf, target: usize, color: bool) -> Exit {
    let (project, _) = rng.pick(PROJECTS);
    header(b, "npm install --loglevel=http", Some("web"));
    let fail = rng.chance(0.3);
    let reserve = if fail { 1100 } else { 420 };
    while b.units() + reserve < target {
        if rng.below(5) == 0 {
            paint(b, color, "33", "npm warn");
            b.ascii(" deprecated ");
            b.ascii(rng.pick(NPM_PACKAGES));
            b.ascii("@");
            vocab::version(b, rng);
            b.ascii(": ");
            b.ascii(rng.pick(NPM_REASONS));
            b.nl();
        } else {
            b.ascii("npm http fetch GET 200 /");
            if rng.below(3) == 0 {
                b.ascii("@");
                b.ascii(project);
                b.ascii("%2f");
            }
            b.ascii(rng.pick(NPM_PACKAGES));
            b.ascii("/-/pkg-");
            vocab::version(b, rng);
            b.ascii(".tgz ");
            b.num(rng.range(3, 900));
            b.ascii(if rng.below(2) == 0 {
                "ms (cache hit)\n"
            } else {
                "ms (cache miss)\n"
            });
        }
    }
    if fail {
        b.needle_line(NeedleKind::FirstError, |b| {
            paint(b, color, "31", "npm error");
            b.ascii(" code ERESOLVE");
        });
        b.nl();
        b.ascii("npm error ERESOLVE unable to resolve dependency tree\nnpm error\nnpm error While resolving: ");
        b.ascii(project);
        b.ascii("-web@0.9.0\nnpm error Found: react@18.3.1\nnpm error node_modules/react\n");
        b.ascii("npm error   react@\"^18.3.1\" from the root project\nnpm error\n");
        b.ascii("npm error Could not resolve dependency:\nnpm error peer react@\"^17.0.2\" from @");
        b.ascii(project);
        b.ascii("/editor-kit@2.4.1\nnpm error node_modules/@");
        b.ascii(project);
        b.ascii("/editor-kit\nnpm error   @");
        b.ascii(project);
        b.ascii("/editor-kit@\"^2.4.0\" from the root project\nnpm error\n");
        b.ascii("npm error Fix the upstream dependency conflict, or retry with --force or --legacy-peer-deps\n");
        b.needle_line(NeedleKind::SummaryLine, |b| {
            b.ascii("npm error A complete log of this run can be found in: /home/dev/.npm/_logs/");
            vocab::iso_time(b, rng);
            b.ascii("-debug-0.log");
        });
        b.nl();
        Exit(1, None)
    } else {
        b.nl();
        let added = rng.range(120, 2400);
        b.needle_line(NeedleKind::SummaryLine, |b| {
            b.ascii("added ");
            b.num(added);
            b.ascii(" packages, and audited ");
            b.num(added + 1);
            b.ascii(" packages in ");
            b.num(rng.range(3, 120));
            b.ascii("s");
        });
        b.ascii("\n\n");
        b.num(added / 6);
        b.ascii(" packages are looking for funding\n  run `npm fund` for details\n\n");
        let v = rng.below(9);
        if v == 0 {
            b.ascii("found 0 vulnerabilities\n");
        } else {
            b.num(v);
            b.ascii(" vulnerabilities (");
            b.num(v / 2);
            b.ascii(" moderate, ");
            b.num(v - v / 2);
            b.ascii(" high)\n\nTo address all issues, run:\n  npm audit fix\n\nRun `npm audit` for details.\n");
        }
        Exit(0, None)
    }
}

pub(super) fn pnpm_install(rng: &mut Stream, b: &mut TextBuf, target: usize) -> Exit {
    header(b, "pnpm install --frozen-lockfile", None);
    b.ascii(
        "Scope: all 7 workspace projects\nLockfile is up to date, resolution step is skipped\n",
    );
    let total = rng.range(300, 2000);
    let reserve = 500;
    let (mut resolved, mut reused, mut downloaded) = (0u64, 0u64, 0u64);
    while b.units() + reserve < target {
        if rng.below(12) == 0 {
            b.ascii(" WARN  deprecated ");
            b.ascii(rng.pick(NPM_PACKAGES));
            b.ascii("@");
            vocab::version(b, rng);
            b.ascii(": ");
            b.ascii(rng.pick(NPM_REASONS));
            b.nl();
        }
        resolved = (resolved + rng.range(1, 40)).min(total);
        reused = (reused + rng.range(0, 30)).min(resolved);
        downloaded = resolved - reused;
        b.ascii("Progress: resolved ");
        b.num(resolved);
        b.ascii(", reused ");
        b.num(reused);
        b.ascii(", downloaded ");
        b.num(downloaded);
        b.ascii(", added ");
        b.num(resolved / 2);
        b.nl();
    }
    b.ascii("Packages: +");
    b.num(resolved.max(1));
    b.nl();
    b.repeat_byte(b'+', 60);
    b.ascii("\nProgress: resolved ");
    b.num(resolved);
    b.ascii(", reused ");
    b.num(reused);
    b.ascii(", downloaded ");
    b.num(downloaded);
    b.ascii(", added ");
    b.num(resolved);
    b.ascii(", done\n\ndependencies:\n+ react 18.3.1\n+ zod 3.23.8\n\ndevDependencies:\n+ typescript 5.5.4\n+ vitest 2.0.5\n\n");
    b.needle_line(NeedleKind::SummaryLine, |b| {
        b.ascii("Done in ");
        b.fixed(rng.range(5, 900), 1);
        b.ascii("s");
    });
    b.nl();
    Exit(0, None)
}
