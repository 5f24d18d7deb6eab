"""One bench per env family, each against that family's own package and the reference EnvPool
(bench/envs/README.md)."""
