"""Running scenarios: one (api.run), many (api.run_many), sweep plans (plan, runner)."""
