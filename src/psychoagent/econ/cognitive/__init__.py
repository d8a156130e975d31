"""The cognitive deciders: households that perceive, recall, decide, pass guardrails, act and reflect.

A cognitive policy runs the household loop (`psychoagent.agent.loop.Loop`) on the model's `CognitiveHousehold`
agents each month: perceive -> recall -> decide -> guard -> act before the markets clear, reflect after them. The
steps share the month's blackboard (`month.Month`) and the policy's `kit.Kit`; a variant swaps a step.

    policy.py              CognitivePolicy (`cognitive`): enrols the households, assembles and runs the loop
    kit.py                 what the steps share: settings, market side, journal, population memory
    month.py               the month's blackboard: who decides, what they saw, recalled, decided; the orders
    perceive.py            the perceive and recall steps
    heuristic.py           the heuristic decision and its decide step
    act.py                 the guard and act steps (deals.py: the steel deals of the act step)
    reflect.py             the reflect step: fills, scoring, persona evolution, reflection
    llm_policy.py          LLMPolicy (`llm`): the decide step asks a language model; briefing fusion
    econagent.py           EconAgentPolicy (`econagent`): propensities from the model (econagent_decide.py),
                           monthly memories and quarterly reflections (econagent_reflect.py)
    econagent_calls.py     the compact prompt and short answers of a language model; econagent_prompt.py: the full one
    propensity.py          the Propensities schema and its guardrails; offline_rules.py: the offline model's answers
    seat.py                the language model the steps ask; config.py: EconAgentConfig, ModelCallConfig
    population.py          the population memory of all cognitive households; streams.py: per-household generators
"""
