//! The complete text of one artifact, as a finalizer hands it to a backend and records it in its outcome.
//!
//! [`Content`] is shared by reference count, so the backend, the persistence record and a report hold one
//! allocation between them; and it is built from a `String` without copying it, so a finalizer that is about to
//! replace a field by its preview can move the field's original text into the artifact instead of copying it.

use std::fmt;
use std::ops::Deref;
use std::sync::Arc;

use serde::{Serialize, Serializer};

/// Shared, immutable artifact text. Dereferences to `str`; compares, prints and serialises as its text.
#[derive(Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct Content(Arc<String>);

impl Content {
    /// The text.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl Deref for Content {
    type Target = str;

    fn deref(&self) -> &str {
        &self.0
    }
}

impl AsRef<str> for Content {
    fn as_ref(&self) -> &str {
        &self.0
    }
}

impl From<String> for Content {
    /// Takes the string's buffer as it is: no copy of the text.
    fn from(text: String) -> Content {
        Content(Arc::new(text))
    }
}

impl From<&str> for Content {
    fn from(text: &str) -> Content {
        Content(Arc::new(text.to_string()))
    }
}

impl fmt::Debug for Content {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self.as_str(), f)
    }
}

impl fmt::Display for Content {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self)
    }
}

impl PartialEq<str> for Content {
    fn eq(&self, other: &str) -> bool {
        self.as_str() == other
    }
}

impl PartialEq<&str> for Content {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == *other
    }
}

impl Serialize for Content {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn moves_strings_in_and_shares_clones() {
        let text = "x".repeat(1_000);
        let buffer = text.as_ptr();
        let content = Content::from(text);
        assert_eq!(
            content.as_ptr(),
            buffer,
            "the string's buffer is taken, not copied"
        );
        let shared = content.clone();
        assert_eq!(shared.as_ptr(), buffer);
        assert_eq!(content, *"x".repeat(1_000).as_str());
        assert_eq!(
            serde_json::to_string(&Content::from("a\"b")).unwrap(),
            r#""a\"b""#
        );
        assert_eq!(format!("{:?}", Content::from("é")), "\"é\"");
    }

    #[test]
    fn every_view_of_it_is_its_text() {
        fn text_of(x: impl AsRef<str>) -> String {
            x.as_ref().to_string()
        }
        let content = Content::from("a\u{1F600}b");
        assert_eq!(text_of(&*content), "a\u{1F600}b");
        assert_eq!(text_of(content.clone()), "a\u{1F600}b");
        assert_eq!(content.as_str(), "a\u{1F600}b");
        assert_eq!(content.to_string(), "a\u{1F600}b");
        assert!(content == "a\u{1F600}b" && content != "ab");
        assert!(content == *"a\u{1F600}b" && content != *"ab");
    }
}
