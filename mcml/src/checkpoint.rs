//! Checkpoints: a run's tallies and photons done, saved atomically while it runs, so that a run
//! that dies (a crash, SIGKILL, a lost machine) goes on where its last checkpoint stopped and
//! still produces the `.mco` of an uninterrupted run, bit for bit.
//!
//! Why resuming is exact: photon `i` draws from stream `(seed, first_photon + i)` whatever the
//! batch, lane, strategy or backend, and tallies are integers, so "photons `0..done` summed,
//! then photons `done..n`" is the same sum as one pass. The same holds across strategies, and
//! in f32 across the CPU and the CUDA backend: a checkpoint written by one may be resumed by
//! another.
//!
//! A checkpoint names the run it belongs to ([`RunKey`]: float type, seed, first stream,
//! photons, and a CRC-32 of the physics and grid) and ends with a CRC-32 of everything before
//! it. [`load`] refuses a file that is not a checkpoint, is damaged or truncated, or belongs
//! to another run, with an error that says which; it never uses one silently. [`save`] writes
//! a temporary file beside the target, flushes it to disk and renames it over the target, so
//! a crash during a save leaves the previous checkpoint intact.
//!
//! Layout (little endian): the magic `RCNVCKPT`, format version (u32), float bits (u32, 32 or
//! 64), input CRC (u32), 0 (u32), seed, first photon, photons, photons done, tally length (u64
//! each), the tally (u64 each), CRC-32 of all the preceding bytes (u32).

use std::io::Write as _;
use std::path::{Path, PathBuf};

use reconverge_workloads::mcml::Beam;

use crate::{RunInput, Streams};

const MAGIC: &[u8; 8] = b"RCNVCKPT";

/// [`RunKey::float_bits`] of a fast-math f32 run (`FastF32`): 32 with the top bit set. A GPU
/// fast-math run's tallies differ from an exact f32 run's, so neither resumes the other.
pub const FAST_MATH_F32_BITS: u32 = 0x8000_0020;

/// The float type a key's `float_bits` names, for messages.
fn float_name(bits: u32) -> String {
    if bits == FAST_MATH_F32_BITS {
        "f32 fast math".into()
    } else {
        format!("f{bits}")
    }
}
const VERSION: u32 = 1;
/// Bytes before the tally.
const HEADER: usize = 8 + 4 * 4 + 8 * 5;

/// Which run a checkpoint belongs to: everything that decides its tallies.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RunKey {
    /// 32 (f32), 64 (f64) or [`FAST_MATH_F32_BITS`] (f32 fast math).
    pub float_bits: u32,
    /// CRC-32 of the run's physics: ambient indices, layers and grid, as f64 bits, and a
    /// finite beam (a pencil beam adds nothing).
    pub input_crc: u32,
    /// The streams' seed.
    pub seed: u64,
    /// Stream of the run's first photon.
    pub first_photon: u64,
    /// Photons of the whole run.
    pub photons: u64,
}

impl RunKey {
    /// The key of `photons` photons of `input` on `streams` in a float of `float_bits` bits.
    pub fn new(input: &RunInput, photons: u64, streams: Streams, float_bits: u32) -> Self {
        let mut h = crc32fast::Hasher::new();
        let mut f = |x: f64| h.update(&x.to_bits().to_le_bytes());
        f(input.n_above);
        f(input.n_below);
        for l in &input.layers {
            for x in [l.n, l.mua, l.mus, l.g, l.d] {
                f(x);
            }
        }
        f(input.grid.dz);
        f(input.grid.dr);
        for n in [input.grid.nz, input.grid.nr, input.grid.na] {
            h.update(&n.to_le_bytes());
        }
        h.update(&(input.layers.len() as u64).to_le_bytes());
        // A finite beam changes every photon; the pencil beam adds nothing, so checkpoints
        // written before beams existed still match their runs.
        match input.beam {
            Beam::Pencil => {}
            Beam::Gaussian { radius } => {
                h.update(b"gaussian");
                h.update(&radius.to_bits().to_le_bytes());
            }
            Beam::Flat { radius } => {
                h.update(b"flat");
                h.update(&radius.to_bits().to_le_bytes());
            }
        }
        Self {
            float_bits,
            input_crc: h.finalize(),
            seed: streams.seed,
            first_photon: streams.first_photon,
            photons,
        }
    }

    /// The first field in which `self` (the file's) differs from `run` (this run's).
    fn difference(&self, run: &RunKey) -> Option<String> {
        if self.float_bits != run.float_bits {
            Some(format!(
                "{} (this run is {})",
                float_name(self.float_bits),
                float_name(run.float_bits)
            ))
        } else if self.input_crc != run.input_crc {
            Some("another input's layers, grid or beam".into())
        } else if self.seed != run.seed {
            Some(format!("seed {} (this run: {})", self.seed, run.seed))
        } else if self.first_photon != run.first_photon {
            Some(format!(
                "streams from {} (this run: from {}; another run of the .mci)",
                self.first_photon, run.first_photon
            ))
        } else if self.photons != run.photons {
            Some(format!(
                "{} photons (this run: {})",
                self.photons, run.photons
            ))
        } else {
            None
        }
    }
}

/// A run's state after some of its photons.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Checkpoint {
    /// The run it belongs to.
    pub key: RunKey,
    /// Photons `0..photons_done` of the run are in `tally`.
    pub photons_done: u64,
    /// The run's integer tallies so far.
    pub tally: Vec<u64>,
}

/// Where checkpoints go and how often.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CheckpointPolicy {
    /// The checkpoint file: resumed from if it exists, rewritten while the run goes on.
    pub path: PathBuf,
    /// Least time between two saves (the last batch is always saved).
    pub every: std::time::Duration,
}

/// Why a checkpoint could not be read or written.
#[derive(Debug, thiserror::Error)]
pub enum CheckpointError {
    /// Reading, writing or renaming failed.
    #[error("checkpoint {path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// What the system said.
        source: std::io::Error,
    },
    /// The file does not start with a checkpoint's magic bytes.
    #[error("{path} is not a reconverge MCML checkpoint")]
    NotACheckpoint {
        /// The file.
        path: PathBuf,
    },
    /// Written by another version of the format.
    #[error("checkpoint {path} has format version {version}; this program reads version {VERSION}")]
    Version {
        /// The file.
        path: PathBuf,
        /// Its version.
        version: u32,
    },
    /// Truncated, or its checksum does not match its contents.
    #[error("checkpoint {path} is damaged ({what}); delete it to start the run over")]
    Damaged {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        what: &'static str,
    },
    /// A checkpoint of another run.
    #[error("checkpoint {path} belongs to another run: {what}; delete it or pass another file")]
    Foreign {
        /// The file.
        path: PathBuf,
        /// How it differs.
        what: String,
    },
}

/// Writes `checkpoint` to `path` atomically: a temporary file beside it, flushed to disk, then
/// renamed over `path`.
pub fn save(path: &Path, checkpoint: &Checkpoint) -> Result<(), CheckpointError> {
    let k = &checkpoint.key;
    let mut bytes = Vec::with_capacity(HEADER + 8 * checkpoint.tally.len() + 4);
    bytes.extend_from_slice(MAGIC);
    for w in [VERSION, k.float_bits, k.input_crc, 0] {
        bytes.extend_from_slice(&w.to_le_bytes());
    }
    let len = checkpoint.tally.len() as u64;
    for w in [
        k.seed,
        k.first_photon,
        k.photons,
        checkpoint.photons_done,
        len,
    ] {
        bytes.extend_from_slice(&w.to_le_bytes());
    }
    for w in &checkpoint.tally {
        bytes.extend_from_slice(&w.to_le_bytes());
    }
    let crc = crc32fast::hash(&bytes);
    bytes.extend_from_slice(&crc.to_le_bytes());
    let io = |source| CheckpointError::Io {
        path: path.to_path_buf(),
        source,
    };
    let tmp = temporary(path);
    let mut file = std::fs::File::create(&tmp).map_err(io)?;
    file.write_all(&bytes).map_err(io)?;
    file.sync_all().map_err(io)?;
    drop(file);
    std::fs::rename(&tmp, path).map_err(io)
}

/// Checks that checkpoints can be written at `path`: creates and removes the temporary file
/// [`save`] writes first, beside it.
pub fn check_writable(path: &Path) -> Result<(), CheckpointError> {
    let tmp = temporary(path);
    std::fs::File::create(&tmp)
        .and_then(|_| std::fs::remove_file(&tmp))
        .map_err(|source| CheckpointError::Io {
            path: path.to_path_buf(),
            source,
        })
}

/// The temporary file [`save`] writes before renaming it over `path`.
fn temporary(path: &Path) -> PathBuf {
    let mut tmp = path.as_os_str().to_owned();
    tmp.push(".tmp");
    PathBuf::from(tmp)
}

/// The `N` bytes of `bytes` from `i`, or `None` where the file ends before them.
fn array_at<const N: usize>(bytes: &[u8], i: usize) -> Option<[u8; N]> {
    bytes.get(i..i.checked_add(N)?)?.try_into().ok()
}

/// Reads the checkpoint at `path` for the run `run` whose tally has `tally_len` counters:
/// `Ok(None)` if there is no file, the checkpoint if it is sound and belongs to `run`, an error
/// otherwise.
pub fn load(
    path: &Path,
    run: &RunKey,
    tally_len: usize,
) -> Result<Option<Checkpoint>, CheckpointError> {
    let bytes = match std::fs::read(path) {
        Ok(b) => b,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(source) => {
            return Err(CheckpointError::Io {
                path: path.to_path_buf(),
                source,
            });
        }
    };
    let p = || path.to_path_buf();
    if bytes.len() < MAGIC.len() || &bytes[..MAGIC.len()] != MAGIC {
        return Err(CheckpointError::NotACheckpoint { path: p() });
    }
    let damaged = |what| CheckpointError::Damaged { path: p(), what };
    let u32_at = |i| {
        array_at(&bytes, i)
            .map(u32::from_le_bytes)
            .ok_or_else(|| damaged("truncated"))
    };
    let u64_at = |i| {
        array_at(&bytes, i)
            .map(u64::from_le_bytes)
            .ok_or_else(|| damaged("truncated"))
    };
    let version = u32_at(8)?;
    if version != VERSION {
        return Err(CheckpointError::Version { path: p(), version });
    }
    let len = u64_at(HEADER - 8)?;
    let expected_size = usize::try_from(len)
        .ok()
        .and_then(|n| n.checked_mul(8))
        .and_then(|n| n.checked_add(HEADER + 4));
    if expected_size != Some(bytes.len()) {
        return Err(damaged("its size does not match its tally length"));
    }
    let body = bytes.len() - 4;
    if crc32fast::hash(&bytes[..body]) != u32_at(body)? {
        return Err(damaged("checksum mismatch"));
    }
    let key = RunKey {
        float_bits: u32_at(12)?,
        input_crc: u32_at(16)?,
        seed: u64_at(24)?,
        first_photon: u64_at(32)?,
        photons: u64_at(40)?,
    };
    if let Some(what) = key.difference(run) {
        return Err(CheckpointError::Foreign { path: p(), what });
    }
    let photons_done = u64_at(48)?;
    if photons_done > key.photons {
        return Err(damaged("more photons done than the run has"));
    }
    if len != tally_len as u64 {
        return Err(CheckpointError::Foreign {
            path: p(),
            what: format!("{len} tally counters (this run: {tally_len})"),
        });
    }
    let tally = bytes[HEADER..body]
        .chunks_exact(8)
        .map(|c| u64::from_le_bytes([c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7]]))
        .collect();
    Ok(Some(Checkpoint {
        key,
        photons_done,
        tally,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::builtin::builtin;

    fn key(seed: u64) -> RunKey {
        let skin = builtin("skin").expect("skin");
        RunKey::new(&skin, 1000, Streams::new(seed), 32)
    }

    fn sample() -> Checkpoint {
        Checkpoint {
            key: key(7),
            photons_done: 600,
            tally: (0..50u64).map(|i| i * 0x0123_4567_89ab).collect(),
        }
    }

    #[test]
    fn a_saved_checkpoint_loads_back() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("run.ckpt");
        assert!(
            load(&path, &key(7), 50)
                .expect("no file is no error")
                .is_none()
        );
        save(&path, &sample()).expect("save");
        assert_eq!(load(&path, &key(7), 50).expect("load"), Some(sample()));
        // No temporary file is left behind.
        assert_eq!(std::fs::read_dir(dir.path()).expect("dir").count(), 1);
    }

    #[test]
    fn foreign_damaged_and_unrelated_files_are_refused() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("run.ckpt");
        save(&path, &sample()).expect("save");
        let err = load(&path, &key(8), 50).expect_err("other seed");
        assert!(matches!(err, CheckpointError::Foreign { .. }), "{err}");
        assert!(err.to_string().contains("seed 7"), "{err}");
        let slab = builtin("slab").expect("slab");
        let other = RunKey::new(&slab, 1000, Streams::new(7), 32);
        assert!(matches!(
            load(&path, &other, 50),
            Err(CheckpointError::Foreign { .. })
        ));
        let f64_key = RunKey {
            float_bits: 64,
            ..key(7)
        };
        assert!(matches!(
            load(&path, &f64_key, 50),
            Err(CheckpointError::Foreign { .. })
        ));
        // One flipped bit anywhere is caught by the checksum.
        let good = std::fs::read(&path).expect("read");
        for i in [9, 30, 70, good.len() - 9] {
            let mut bad = good.clone();
            bad[i] ^= 0x10;
            std::fs::write(&path, &bad).expect("write");
            let err = load(&path, &key(7), 50).expect_err("damaged");
            assert!(
                matches!(
                    err,
                    CheckpointError::Damaged { .. } | CheckpointError::Version { .. }
                ),
                "byte {i}: {err}"
            );
        }
        std::fs::write(&path, &good[..good.len() - 5]).expect("write");
        assert!(matches!(
            load(&path, &key(7), 50),
            Err(CheckpointError::Damaged { .. })
        ));
        assert!(check_writable(&dir.path().join("no-such-dir").join("x.ckpt")).is_err());
        assert!(check_writable(&path).is_ok());
        std::fs::write(&path, b"skin.mco: not a checkpoint").expect("write");
        assert!(matches!(
            load(&path, &key(7), 50),
            Err(CheckpointError::NotACheckpoint { .. })
        ));
    }
}
