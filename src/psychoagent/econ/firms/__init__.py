"""Cognitive firms: persona, memory and the perceive -> brief -> decide -> guard -> act -> evolve loop, each
quarter (`EconomyConfig.firms.mode = "cognitive"` or `"llm"`; `"rule"` keeps the demand-gap firms). The firm itself,
a Mesa agent, is `econ.firm`; its state here (`state.FirmState`) is the agent's `mind`."""
