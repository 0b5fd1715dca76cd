"""TCP Westwood BE / RE / CRB / ABSE (Wang, Valla, Sanadidi & Gerla, ICNP 2002) reproduced:
``cclab reproduce westwood``."""
