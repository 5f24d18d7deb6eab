"""External episodes (envpool.external): serve, PolicyClient, ExternalEnv, the wire protocol, ZMTP
and the server's bounds."""
