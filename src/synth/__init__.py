"""toposynth.synth — the design flow users run: CLI, studies, reports."""
