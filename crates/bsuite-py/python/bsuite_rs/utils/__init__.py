"""bsuite's `bsuite.utils`: `gym_wrapper` (GymFromDMEnv, DMEnvFromGym) and `wrappers`
(RewardNoise, RewardScale, Logging), with bsuite 0.3.6's signatures."""
