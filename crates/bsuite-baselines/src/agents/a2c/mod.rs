pub(crate) mod host;
pub(crate) mod sequence;
