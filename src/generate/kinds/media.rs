//! Media responses: a short output beside an inlineData part (base64 data that starts like a PNG or JPEG) or a
//! fileData part.

use serde_json::{Map, Value};

use super::Writers;
use crate::generate::buf::Written;
use crate::generate::vocab::NOUNS;
use crate::generate::{Body, Ctx, Draft};
use crate::model::Part;
use crate::rng::Stream;

/// How this kind's outputs are written: [`write`].
pub(super) const WRITERS: Writers = Writers {
    long: write,
    short: None,
};

/// A media response, its base64 data of a size drawn from the scenario's media model (`target`, drawn from the
/// same model, is not its size).
pub(crate) fn write(c: &mut Ctx, _target: usize) -> Draft {
    let bytes = c.knobs.media.sample(&mut c.rng);
    with_bytes(c, bytes)
}

/// A media response: a short output plus an inlineData part with `bytes` of base64, or a fileData part.
fn with_bytes(c: &mut Ctx, bytes: usize) -> Draft {
    let rng = &mut c.rng;
    let name = format!("{}_{}", rng.pick(NOUNS), rng.below(100));
    let mut map = Map::new();
    let output = if rng.below(4) == 0 {
        let mut fd = Map::new();
        fd.insert("mimeType".into(), Value::String("application/pdf".into()));
        fd.insert(
            "fileUri".into(),
            Value::String(format!("file:///home/dev/work/tallyhouse/docs/{name}.pdf")),
        );
        map.insert("fileData".into(), Value::Object(fd));
        format!("Attached docs/{name}.pdf (application/pdf).")
    } else {
        let png = rng.below(2) == 0;
        let mut id = Map::new();
        id.insert(
            "mimeType".into(),
            Value::String(if png { "image/png" } else { "image/jpeg" }.into()),
        );
        id.insert("data".into(), Value::String(base64(rng, bytes, png)));
        map.insert("inlineData".into(), Value::Object(id));
        format!(
            "Read image file: assets/{name}.{} ({} bytes).",
            if png { "png" } else { "jpg" },
            bytes / 4 * 3
        )
    };
    let mut d = Draft::output("read_file", Body::Text(Written::plain(output)));
    d.media.push(Part(map));
    d
}

/// `len` (rounded down to a multiple of 4) characters of base64 of random bytes, starting like a PNG or JPEG.
fn base64(rng: &mut Stream, len: usize, png: bool) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let groups = (len / 4).max(1);
    let mut raw = vec![0u8; groups * 3];
    rng.fill_bytes(&mut raw);
    let magic: &[u8] = if png {
        b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR"
    } else {
        b"\xff\xd8\xff\xe0\0\x10JFIF\0"
    };
    let n = magic.len().min(raw.len());
    raw[..n].copy_from_slice(&magic[..n]);
    let mut out = Vec::with_capacity(groups * 4);
    for chunk in raw.chunks_exact(3) {
        let v = (u32::from(chunk[0]) << 16) | (u32::from(chunk[1]) << 8) | u32::from(chunk[2]);
        for shift in [18, 12, 6, 0] {
            out.push(ALPHABET[((v >> shift) & 63) as usize]);
        }
    }
    String::from_utf8(out).expect("base64 is ascii")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::generate::test_ctx;

    #[test]
    fn media_parts_carry_valid_base64() {
        let mut c = test_ctx(22);
        for _ in 0..20 {
            let d = with_bytes(&mut c, 1_000);
            assert_eq!(d.media.len(), 1);
            let part = &d.media[0];
            assert!(part.is_media());
            if let Some(data) = part
                .0
                .get("inlineData")
                .and_then(|v| v.get("data"))
                .and_then(|v| v.as_str())
            {
                assert_eq!(data.len(), 1_000);
                assert!(
                    data.starts_with("iVBORw0KGgo") || data.starts_with("/9j/4"),
                    "{}",
                    &data[..12]
                );
            }
        }
    }
}
