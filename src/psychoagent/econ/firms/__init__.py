"""The sector firms: the representative firm of a sector as a Mesa agent (`agent.py`: demand-gap prices, wages and
hiring), and cognitive firms: persona, memory and the perceive -> brief -> decide -> guard -> act -> evolve loop,
each quarter (`EconomyConfig.firms.mode = "cognitive"` or `"llm"`; `"rule"` keeps the demand-gap firms)."""
