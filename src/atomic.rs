//! Atomic output files: written to a temporary file beside the destination and renamed into place only when
//! complete, so an error (or a crash) never leaves a half-written output behind.

use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};

use crate::error::{Error, Result};

/// A file being written atomically. Dropped without [`AtomicFile::commit`], it removes its temporary file.
#[derive(Debug)]
pub struct AtomicFile {
    dest: PathBuf,
    tmp: PathBuf,
    out: Option<BufWriter<File>>,
}

impl AtomicFile {
    /// Starts writing `dest` (through `.<name>.<pid>.tmp` in the same directory).
    pub fn create(dest: &Path) -> Result<AtomicFile> {
        let name = dest.file_name().ok_or_else(|| {
            Error::invalid("output path", dest.display().to_string(), "names no file")
        })?;
        let mut tmp_name = std::ffi::OsString::from(".");
        tmp_name.push(name);
        tmp_name.push(format!(".{}.tmp", std::process::id()));
        let tmp = dest.with_file_name(tmp_name);
        let file = File::create(&tmp).map_err(|e| Error::io(&tmp, e))?;
        Ok(AtomicFile {
            dest: dest.to_path_buf(),
            tmp,
            out: Some(BufWriter::with_capacity(1 << 20, file)),
        })
    }

    /// Flushes, syncs and renames the file into place.
    pub fn commit(mut self) -> Result<()> {
        let out = self.out.take().expect("not yet committed");
        let file = out
            .into_inner()
            .map_err(|e| Error::io(&self.tmp, e.into_error()))?;
        file.sync_all().map_err(|e| Error::io(&self.tmp, e))?;
        drop(file);
        std::fs::rename(&self.tmp, &self.dest).map_err(|e| Error::io(&self.dest, e))
    }

    /// The destination path.
    pub fn dest(&self) -> &Path {
        &self.dest
    }
}

impl Write for AtomicFile {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.out.as_mut().expect("not yet committed").write(buf)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.out.as_mut().expect("not yet committed").flush()
    }
}

impl Drop for AtomicFile {
    fn drop(&mut self) {
        if self.out.take().is_some() {
            let _ = std::fs::remove_file(&self.tmp);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn commit_renames_and_drop_cleans_up() {
        let dir = tempfile::tempdir().unwrap();
        let dest = dir.path().join("out.jsonl");
        let mut f = AtomicFile::create(&dest).unwrap();
        f.write_all(b"one\n").unwrap();
        assert!(!dest.exists());
        f.commit().unwrap();
        assert_eq!(std::fs::read(&dest).unwrap(), b"one\n");

        let mut g = AtomicFile::create(&dest).unwrap();
        g.write_all(b"half").unwrap();
        drop(g);
        assert_eq!(std::fs::read(&dest).unwrap(), b"one\n");
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
    }
}
