"""Where results go: result directories (directory) and the sweep/reproduction store (sweeps)."""
