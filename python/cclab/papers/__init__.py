"""The papers cclab reproduces: the shared figure/claim framework, one subpackage per paper."""
