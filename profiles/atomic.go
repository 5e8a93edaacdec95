package profiles

// fileMode keeps settings and server.json private: server.json holds the
// token that opens the agent's shell.
const fileMode = 0o600
