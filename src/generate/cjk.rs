//! Chinese text, for the tool output a Chinese-speaking team's agent sees: application log messages, code
//! comments and docstrings, documentation and issue-tracker text written in Chinese, about the same made-up code
//! bases as the English text. A scenario asks for it with `cjk_share` (the share of prose written in Chinese);
//! at the default of zero [`chosen`] draws nothing from the stream, so every other scenario keeps its bytes.

use super::buf::TextBuf;
use super::vocab::{self, MODULES, PROJECTS};
use crate::needles::NeedleKind;
use crate::rng::Stream;

/// Whether this piece of prose is written in Chinese: drawn with probability `share`, and without touching the
/// stream when `share` is zero.
#[inline]
pub(crate) fn chosen(rng: &mut Stream, share: f64) -> bool {
    share > 0.0 && rng.unit() < share
}

const SUBJECTS: &[&str] = &[
    "账本导出",
    "重试循环",
    "批量过账",
    "分页游标",
    "Webhook 回调处理",
    "夜间导入任务",
    "汇总页面",
    "货币舍入",
    "缓存层",
    "租户配置加载",
    "发票渲染",
    "数据库迁移",
    "限流器",
    "审计日志",
    "搜索索引",
];
const PREDICATES: &[&str] = &[
    "会失败",
    "会跳过部分记录",
    "会超时",
    "会重复计算条目",
    "会导致页面布局错乱",
    "会返回过期数据",
    "会忽略配置的上限",
    "会直接崩溃",
    "会变得非常慢",
    "会记录误导性的错误信息",
    "会丢失最后一页",
];
const CONDITIONS: &[&str] = &[
    "一个批次混合多种货币",
    "两条过账记录的时间戳相同",
    "所有者字段为空",
    "请求中途连接断开",
    "某个租户的发票超过一万张",
    "系统区域设置不是英文",
    "重试与原始请求同时到达",
    "文件名包含空格",
    "部署期间系统时钟回拨",
    "上游返回空响应体",
    "会话中途切换了功能开关",
    "队列被并发清空",
];
/// Nouns of the code bases, for comments.
const NOUNS: &[&str] = &[
    "金额",
    "条目",
    "批次",
    "账户",
    "余额",
    "游标",
    "记录",
    "请求",
    "响应",
    "令牌",
    "发票",
    "账本",
    "快照",
    "时间窗口",
    "偏移量",
    "负载",
    "分段",
    "区间",
    "句柄",
    "上限",
    "币种",
    "汇率",
    "所有者",
    "租户",
    "计划",
    "摘要",
    "数据块",
    "帧",
    "行",
    "列",
];
const COMMENTS: &[(&str, &str)] = &[
    ("计算", "并返回更新后的副本"),
    ("在过账之前校验", "，不合法时返回错误"),
    ("跳过已经处理过的", "，避免重复写入"),
    ("为当前租户加载", "，结果会被缓存"),
    ("按时间顺序合并", "，保留最早的一条"),
    ("把", "规范化为统一的格式"),
    ("重新计算", "；注意这里不加锁"),
];
const TITLES: &[&str] = &[
    "导出报表时金额四舍五入错误",
    "批量过账在高并发下偶尔丢失记录",
    "Webhook 回调失败后没有重试",
    "分页接口在时间戳相同时跳过数据",
    "租户名称包含中文时 PDF 乱码",
    "夜间导入任务超时，需要拆分批次",
    "数据库迁移在只读副本上卡住",
    "审计日志中已删除用户显示为空",
    "限流器把预检请求也计入配额",
    "缓存失效后首页加载超过十秒",
];
/// Details some log lines end with.
const DETAILS: &[&str] = &[
    "，请检查配置文件",
    "，已通知值班人员",
    "，稍后会自动恢复",
    "，本次请求已被忽略",
    "，详情见监控面板",
    "（租户：东方贸易有限公司）",
    "（来源：夜间批处理）",
];
const SECTIONS: &[&str] = &[
    "概述",
    "快速开始",
    "配置说明",
    "常见问题",
    "设计说明",
    "故障排查",
    "接口约定",
];

/// Writes a Chinese sentence of about `words` English words' worth of clauses ("当……时，……会……"), without a
/// final full stop.
pub(crate) fn sentence(b: &mut TextBuf, rng: &mut Stream, words: usize) {
    let clauses = 1 + words / 12;
    for i in 0..clauses {
        if i > 0 {
            b.push(if i % 2 == 1 {
                "，而且"
            } else {
                "；另外，"
            });
        }
        let r = rng.next_u32() as usize;
        b.push("当");
        b.push(CONDITIONS[(r >> 16) % CONDITIONS.len()]);
        b.push("时，");
        b.push(SUBJECTS[r % SUBJECTS.len()]);
        b.push(PREDICATES[(r >> 8) % PREDICATES.len()]);
    }
}

/// Writes a one-line code comment's text ("计算金额并返回更新后的副本。").
pub(crate) fn comment(b: &mut TextBuf, rng: &mut Stream) {
    let r = rng.next_u32() as usize;
    let (before, after) = COMMENTS[r % COMMENTS.len()];
    b.push(before);
    b.push(NOUNS[(r >> 8) % NOUNS.len()]);
    b.push(after);
    b.push("。");
}

/// An issue title.
pub(crate) fn title(rng: &mut Stream) -> &'static str {
    rng.pick(TITLES)
}

/// Writes a block of Markdown documentation in Chinese: a heading, a paragraph and a list of identifiers.
pub(crate) fn md_block(rng: &mut Stream, b: &mut TextBuf) {
    b.ascii("## ");
    b.push(rng.pick(SECTIONS));
    b.ascii("\n\n");
    sentence(b, rng, 18);
    b.push("。");
    sentence(b, rng, 14);
    b.push("。\n\n- `");
    vocab::ident(b, rng);
    b.push("`：");
    comment(b, rng);
    b.ascii("\n- `");
    vocab::ident(b, rng);
    b.push("`：");
    sentence(b, rng, 7);
    b.push("。\n\n");
}

/// Writes an application's log as a shell command shows it (`kubectl logs`, `tail`, `journalctl`, `docker
/// compose logs`) with Chinese messages, of about `target` units; the first ERROR line is planted. The command
/// succeeds.
pub(crate) fn app_log(rng: &mut Stream, b: &mut TextBuf, target: usize) {
    let (project, krate) = rng.pick(PROJECTS);
    let module = rng.pick(MODULES);
    let lines = rng.range(100, 1000);
    b.ascii("Command: ");
    match rng.below(4) {
        0 => {
            b.ascii("kubectl logs deploy/");
            b.ascii(krate);
            b.ascii(" --tail=");
            b.num(lines);
        }
        1 => {
            b.ascii("tail -n ");
            b.num(lines);
            b.ascii(" logs/");
            b.ascii(module);
            b.ascii(".log");
        }
        2 => {
            b.ascii("journalctl -u ");
            b.ascii(krate);
            b.ascii(" -n ");
            b.num(lines);
            b.ascii(" --no-pager");
        }
        _ => {
            b.ascii("docker compose logs --no-color ");
            b.ascii(module);
        }
    }
    b.ascii("\nDirectory: ");
    vocab::project_root(b, project);
    b.ascii("\nOutput:\n");
    let start = rng.next_u64();
    let (mut h, mut m, mut s, mut ms) = (start % 24, (start >> 8) % 60, (start >> 16) % 60, 0u64);
    let mut first_error = true;
    while b.units() + 60 < target {
        ms += rng.range(1, 900);
        s += ms / 1000;
        ms %= 1000;
        m += s / 60;
        s %= 60;
        h = (h + m / 60) % 24;
        m %= 60;
        let level = match rng.below(20) {
            0 | 1 => "ERROR",
            2..=4 => "WARN ",
            _ => "INFO ",
        };
        let mark = b.mark();
        b.ascii("2025-03-");
        b.num_pad(1 + (start >> 24) % 28, 2);
        b.ascii(" ");
        b.num_pad(h, 2);
        b.ascii(":");
        b.num_pad(m, 2);
        b.ascii(":");
        b.num_pad(s, 2);
        b.ascii(".");
        b.num_pad(ms, 3);
        b.ascii(" ");
        b.ascii(level);
        b.ascii(" [");
        b.ascii(rng.pick(MODULES));
        b.ascii("] ");
        log_message(rng, b, level);
        if rng.below(3) == 0 {
            b.push(rng.pick(DETAILS));
        }
        if level == "ERROR" && first_error {
            first_error = false;
            b.plant(NeedleKind::FirstError, mark);
        }
        if rng.below(4) == 0 {
            b.ascii(" trace_id=");
            vocab::hex_id(b, rng, 16);
        }
        b.nl();
    }
}

fn log_message(rng: &mut Stream, b: &mut TextBuf, level: &str) {
    let n = rng.range(1, 5_000);
    match (level, rng.below(4)) {
        ("INFO ", 0) => {
            b.push("开始处理批次 #");
            b.num(n);
            b.push("，共 ");
            b.num_grouped(rng.range(1, 20_000));
            b.push(" 条记录");
        }
        ("INFO ", 1) => {
            b.push("批量过账完成：处理 ");
            b.num_grouped(rng.range(1, 20_000));
            b.push(" 条记录，耗时 ");
            b.num(rng.range(2, 900));
            b.push(" 毫秒");
        }
        ("INFO ", 2) => {
            b.push("同步完成，新增 ");
            b.num(n);
            b.push(" 条，更新 ");
            b.num(rng.below(500));
            b.push(" 条，跳过 ");
            b.num(rng.below(20));
            b.push(" 条重复数据");
        }
        ("INFO ", _) => {
            b.push("已从缓存加载租户配置（");
            b.num(rng.range(3, 80));
            b.push(" 项），连接池：活跃 ");
            b.num(rng.range(1, 32));
            b.push("，空闲 ");
            b.num(rng.range(0, 16));
        }
        ("WARN ", 0) => {
            b.push("缓存命中率偏低（");
            b.num(rng.range(5, 60));
            b.push("%），建议增大缓存容量");
        }
        ("WARN ", 1) => {
            b.push("请求耗时 ");
            b.num(rng.range(501, 9_000));
            b.push(" 毫秒，超过阈值 500 毫秒：");
            b.ascii("GET /api/");
            b.ascii(rng.pick(MODULES));
            b.ascii("/");
            b.num(n);
        }
        ("WARN ", 2) => {
            b.push("第 ");
            b.num(rng.range(1, 5));
            b.push(" 次重试：上游服务暂时不可用");
        }
        ("WARN ", _) => {
            b.push("配置项 ");
            vocab::ident(b, rng);
            b.push(" 已废弃，请改用新的配置项");
        }
        (_, 0) => {
            b.push("回调失败：上游返回 502，将在 ");
            b.num(rng.range(5, 120));
            b.push(" 秒后重试");
        }
        (_, 1) => {
            b.push("数据库连接超时（");
            b.num(rng.range(1_000, 30_000));
            b.push(" 毫秒），事务已回滚");
        }
        (_, 2) => {
            b.push("解析发票 #");
            b.num(n);
            b.push(" 失败：金额字段不是合法的数字");
        }
        _ => {
            sentence(b, rng, 6);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::Seed;

    fn stream() -> Stream {
        Stream::derive(Seed(7), "cjk-test", 0)
    }

    #[test]
    fn zero_share_draws_nothing() {
        let (mut a, mut b) = (stream(), stream());
        for _ in 0..100 {
            assert!(!chosen(&mut a, 0.0));
        }
        assert_eq!(a.next_u64(), b.next_u64());
        let mut c = stream();
        assert!((0..100).all(|_| chosen(&mut c, 1.0)));
    }

    #[test]
    fn app_logs_are_chinese_hit_their_size_and_plant_the_first_error() {
        let mut rng = stream();
        for target in [1_000usize, 10_000, 60_000] {
            let mut b = TextBuf::with_capacity(target);
            app_log(&mut rng, &mut b, target);
            let w = b.finish();
            assert_eq!(w.units, w.text.encode_utf16().count());
            assert!(
                w.units + 200 >= target && w.units <= target + 200,
                "{}",
                w.units
            );
            let han = w
                .text
                .chars()
                .filter(|c| ('\u{4e00}'..='\u{9fff}').contains(c))
                .count();
            // Timestamps, levels, modules and the header are ASCII; a sixth of the units at least is Han.
            assert!(
                han * 6 > w.units,
                "{han} Han characters in {} units",
                w.units
            );
            let errors: Vec<&str> = w.text.lines().filter(|l| l.contains(" ERROR [")).collect();
            assert_eq!(
                w.needles
                    .iter()
                    .map(|n| n.text.as_str())
                    .collect::<Vec<_>>(),
                errors
                    .first()
                    .map(|l| l.split(" trace_id=").next().unwrap())
                    .into_iter()
                    .collect::<Vec<_>>()
            );
            for n in &w.needles {
                let start = crate::text::head(&w.text, n.offset).len();
                assert!(w.text[start..].starts_with(&n.text));
            }
        }
    }

    #[test]
    fn prose_has_no_characters_that_need_json_escaping() {
        let mut rng = stream();
        let mut b = TextBuf::with_capacity(4_000);
        for _ in 0..50 {
            sentence(&mut b, &mut rng, 30);
            comment(&mut b, &mut rng);
            b.push(title(&mut rng));
        }
        let w = b.finish();
        assert!(!w.text.contains(['"', '\\', '\n']));
        assert_eq!(w.units, w.text.encode_utf16().count());
    }
}
