pub(crate) mod host;
pub(crate) mod q_ensemble;
pub(crate) mod replay;
pub(crate) mod sparse_replay;
