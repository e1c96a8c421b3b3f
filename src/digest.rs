//! Content digests: the SHA-256 of a text, raw or as lowercase hex. A shortened field's header names its full
//! output's digest, a scenario's hash is the digest of its canonical JSON, a recorded workload's is the digest of
//! its file, and the floor folds the digests of the fields it cuts. A leaf: it names no other module.

use sha2::{Digest, Sha256};

/// The SHA-256 of `bytes`.
pub fn sha256(bytes: &[u8]) -> [u8; 32] {
    Sha256::digest(bytes).into()
}

/// Lowercase hex SHA-256 of `data` (a text's UTF-8 bytes, or any bytes).
pub fn sha256_hex(data: impl AsRef<[u8]>) -> String {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let mut hex = String::with_capacity(64);
    for b in sha256(data.as_ref()) {
        hex.push(char::from(HEX[usize::from(b >> 4)]));
        hex.push(char::from(HEX[usize::from(b & 0xf)]));
    }
    hex
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_digests() {
        assert_eq!(
            sha256_hex("abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
        assert_eq!(
            sha256_hex(""),
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
        );
        // A two-byte character and one outside the BMP: hashed as their UTF-8 bytes, not as UTF-16.
        assert_eq!(
            sha256_hex("é😀"),
            "1184d1f608158eea09d297565575892231550c403aaa913008d867a97cfd5c76"
        );
        assert_eq!(sha256_hex(b"abc"), sha256_hex("abc"));
        assert_eq!(sha256(b"abc")[..4], [0xba, 0x78, 0x16, 0xbf]);
    }
}
