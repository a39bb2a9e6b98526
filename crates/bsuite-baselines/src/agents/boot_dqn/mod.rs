pub(crate) mod libtorch;
