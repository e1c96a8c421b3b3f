//! The cost floor of finalization: the least work any exact finalizer must do on a batch, so that a finalizer's
//! measured time can be reported as a ratio to what the hardware cannot avoid.
//!
//! An exact finalizer must know the UTF-16 length of every text field (one pass over all of the batch's text),
//! and for every field it shortens it must hash the full text, since the fit's header names the full output's
//! sha256. [`floor`] does exactly that and nothing more: one measuring pass, the water-fill allocation computed
//! from the lengths alone, and sha256 over the fields the allocation cuts. It writes nothing, copies no text and
//! builds no preview.
//!
//! The floor is the least work of one core: it hashes the cut fields one after the other on the calling thread.
//! A finalizer that hashes a large batch's cut fields on several cores at once (the reference and the strategies
//! built on its parts do, see `finalize/cut_digests.rs`) can take less time than the floor; its ratio to the
//! floor below 1 is that parallelism, measured.

use crate::alloc::water_fill;
use crate::digest::{sha256_known, KnownDigests};
use crate::model::{Entry, Field};
use crate::text::utf16_len;

/// What the floor's work found, returned so that none of it can be optimised away.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FloorWork {
    /// Text fields measured (text parts, string outputs and string errors).
    pub fields: usize,
    /// Their total length in UTF-16 units.
    pub units: u64,
    /// Fields longer than their allocation, whose full text was hashed.
    pub shortened: usize,
    /// The XOR of the sha256 digests of the shortened fields.
    pub digest: [u8; 32],
}

/// Does the least work an exact finalizer must do on `batch` at a budget of `budget` UTF-16 units: measures
/// every text field, allocates the budget from the lengths, and hashes each field the allocation cuts.
pub fn floor(batch: &[Entry], budget: u64) -> FloorWork {
    floor_known(batch, budget, None)
}

/// [`floor`] given the batch's `known` digests (when some): a cut field whose digest is known is looked up, and
/// one that is not is hashed and becomes known. The work found is the same.
pub fn floor_known(batch: &[Entry], budget: u64, known: Option<&KnownDigests>) -> FloorWork {
    let mut texts: Vec<&str> = Vec::with_capacity(batch.len());
    let mut lengths: Vec<u64> = Vec::with_capacity(batch.len());
    for part in batch.iter().flat_map(|e| &e.response_parts) {
        for field in Field::ALL {
            if let Some(text) = part.field(field) {
                texts.push(text);
                lengths.push(utf16_len(text) as u64);
            }
        }
    }
    let mut work = FloorWork {
        fields: texts.len(),
        units: lengths.iter().sum(),
        shortened: 0,
        digest: [0; 32],
    };
    if work.units <= budget {
        return work;
    }
    let allocation = water_fill(&lengths, budget);
    for ((text, &len), &a) in texts.iter().zip(&lengths).zip(&allocation) {
        if len > a {
            let digest = sha256_known(known, text);
            for (acc, b) in work.digest.iter_mut().zip(digest.iter()) {
                *acc ^= b;
            }
            work.shortened += 1;
        }
    }
    work
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::digest::sha256_hex;
    use crate::model::Part;
    use serde_json::Value;

    fn entry(id: &str, output: &str) -> Entry {
        let part = Part::function_response(id, "shell", Some(Value::String(output.into())), None);
        Entry::new(id, "shell", vec![part])
    }

    #[test]
    fn measures_everything_and_hashes_only_what_the_allocation_cuts() {
        let long = "x".repeat(1_000);
        let batch = vec![entry("a", "short"), entry("b", &long)];
        let work = floor(&batch, 100);
        assert_eq!((work.fields, work.units, work.shortened), (2, 1_005, 1));
        let hex: String = work.digest.iter().map(|b| format!("{b:02x}")).collect();
        assert_eq!(hex, sha256_hex(&long));
    }

    #[test]
    fn a_batch_that_fits_hashes_nothing() {
        let batch = vec![entry("a", "short"), entry("b", "😀")];
        let work = floor(&batch, 7);
        assert_eq!((work.fields, work.units, work.shortened), (2, 7, 0));
        assert_eq!(work.digest, [0; 32]);
    }
}
