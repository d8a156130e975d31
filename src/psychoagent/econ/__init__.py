"""The economy: a Mesa 3 model of households, sector firms, markets, a bank and a government, with decision
policies from rules to cognitive agents. Arrows run one way: the model at the top imports its parts; the parts
read the model through `contracts.Economy` and never import it.

    model.py        EconomyModel: owns every agent (households and firms, plain and cognitive) and runs a month
    month.py        the month's central steps: labour and production, incomes and taxes, the goods market
    agents.py       Household and CognitiveHousehold Mesa agents (firms re-exported from firm.py)
    households.py   the household population as arrays: skills, sectors, balances, personas
    contracts.py    the protocols: what a policy declares, what the model's parts read of the economy
    intents.py      a decision's data: AgentState, HouseholdView, Intent, IntentBatch, Outcomes
    baselines.py    the rule policies: composite (EconAgent's), persona, and the bases to write one
    policies.py     the registry by name (make_policy, register_policy) and the public decision names
    bank.py         overdraft interest and deposit interest; indicators.py, collect.py: macro rows, run tables
    snapshot.py     the immutable public view of a month; news.py, shocks.py: news and scheduled shocks
    rules.py        pure rules (Taylor, taxes, consumption, clearing of goods); orders.py: order types
    investors.py    the persona-driven investors of the markets; gc_pause.py: fewer collections during a run
    config.py       EconomyConfig and the run's SimulationConfig, RunLimits, LocalClusterConfig
    scenario.py     scenario files (overrides and shocks); run.py: one run on disk
    markets/        steel, stocks and a bond in call auctions (exchange, clearing, intake, settlement, bonds)
    firms/          the cognitive firms: persona, memory, plants and their quarterly loop
    mind/           a household's mind: perception, beliefs, expectations, decision schema, guardrails, talks
    cognitive/      the cognitive deciders: the household loop's steps and the cognitive, llm, econagent policies
    distributed/    cognitive households in shards (in process or Ray actors), the same run files
"""
