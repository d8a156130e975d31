"""Coefficients of the markets and of the persona-driven investors, each with a one-line reason or source."""

from __future__ import annotations

from pydantic import Field

from psychoagent.config import ConfigModel, Count, NonNegative, Positive, PositiveShare, Share


class InvestorConfig(ConfigModel):
    """How households form price expectations and size orders (Brock & Hommes 1998; Lux & Marchesi 1999;
    Chiarella, Iori & Perello 2009): fundamental + trend + herding + optimism + private noise."""

    activity: Share = Field(0.1, description="chance a neutral household reviews a position in a round")
    attention: NonNegative = Field(
        2.0, description="activity x (recent |r| / long-run |r|)^this: big moves draw traders in"
    )
    horizon: Positive = Field(20.0, description="rounds ahead an expectation is about (one month)")
    reversion_rounds: Positive = Field(
        200.0, description="value traders expect the gap to value to close at 1/this per round"
    )
    trend_span: float = Field(2.0, ge=1, description="EWMA span (rounds) of the return trend chartists read")
    extrapolation: NonNegative = Field(
        0.005, description="chartists expect this x the recent per-round trend to go on over the horizon"
    )
    trend_base: Share = Field(0.05, description="trend weight of a household at risk 0, learning 0")
    trend_risk: NonNegative = Field(0.5, description="+ this x risk_preference: risk takers chase trends")
    trend_learning: NonNegative = Field(
        0.35, description="+ this x learning_rate: fast (unstable) learners extrapolate more"
    )
    switching: NonNegative = Field(1.0, description="intensity of choice beta (Franke & Westerhoff 2012: 1)")
    predisposition: float = Field(
        -0.327, description="switching: a0 < 0 leans toward trend following (Franke & Westerhoff 2012)"
    )
    herd_switch: NonNegative = Field(
        3.0,
        description="switching: + this x (n_value - n_trend); above Franke-Westerhoff's 1.79 so regimes persist",
    )
    misalignment: NonNegative = Field(
        18.43, description="switching: + this x ln(V / P)^2: far from value, value trading attracts"
    )
    herding: NonNegative = Field(
        0.005, description="expected horizon log return per unit of last round's net flow x social_tendency"
    )
    optimism: NonNegative = Field(0.01, description="expected horizon log return per unit of optimism")
    noise_value: NonNegative = Field(
        0.0, description="s.d. of news value traders share each round: 0, they read only the dividend value"
    )
    noise_trend: NonNegative = Field(
        0.06, description="s.d. of the chart signal trend followers share each round (common noise)"
    )
    noise_private: NonNegative = Field(
        0.02, description="s.d. of each household's own noise in its expectation (keeps trading two-sided)"
    )
    tilt: NonNegative = Field(
        2.0, description="share of wealth shifted per unit of expected log return x invest x (0.5 + risk)"
    )
    max_move: Positive = Field(
        0.1, description="a limit lies at most this log distance from the last price (price band)"
    )
    max_share: PositiveShare = Field(0.9, description="at most this share of wealth in one instrument")
    min_order_value: NonNegative = Field(
        1.0, description="orders worth less than this (currency) are not sent: no dust trading"
    )
    initial_volatility: Positive = Field(
        0.01, description="per-round return s.d. assumed before any trade (1 % a day)"
    )
    attention_range: tuple[float, float] = Field(
        (0.5, 3.0), description="bounds of the attention ratio: calm markets never empty, panics saturate"
    )
    attention_fast: PositiveShare = Field(0.2, description="EWMA weight of |r| in recent volatility")
    attention_slow: PositiveShare = Field(0.005, description="EWMA weight of |r| in long-run volatility")


class InformationConfig(ConfigModel):
    """Information arrival that drives trading and price changes together: the mixture-of-distributions hypothesis
    (Clark 1973; Tauchen & Pitts 1983), with persistent arrival as in Andersen (1996)."""

    enabled: bool = Field(
        True, description="scale trading and news by an information intensity per instrument"
    )
    persistence: float = Field(
        0.98,
        ge=0,
        lt=1,
        description=(
            "AR(1) coefficient of log intensity per round (a day): information comes in spells; 0.98 as daily"
            " log variance in Kim, Shephard & Chib (1998)"
        ),
    )
    dispersion: NonNegative = Field(
        0.78,
        description=(
            "stationary s.d. of log intensity: 0.16 / sqrt(1 - 0.98^2), the daily log-variance shocks of Kim,"
            " Shephard & Chib (1998, exchange rates)"
        ),
    )
    activity: NonNegative = Field(
        1.0, description="review chance x intensity^this (Tauchen & Pitts: traders react to each event)"
    )
    shared: NonNegative = Field(
        0.5,
        description="s.d. of the news a style's followers share x intensity^this (Clark 1973: variance per event)",
    )
    disagreement: NonNegative = Field(
        1.0,
        description=(
            "s.d. of each household's own reading x intensity^this: opinions spread as news comes (Harris & Raviv"
            " 1993; Kandel & Pearson 1995: public news is read differently, so it brings volume)"
        ),
    )
    headlines: NonNegative = Field(
        0.5,
        description=(
            "log intensity + this x (the month's summed |sentiment| of news - its usual level) at the session's"
            " start: announcements bring trading and volatility (Flannery & Protopapadakis 2002)"
        ),
    )
    news_memory: float = Field(
        12.0,
        ge=1,
        description="months: span of the EWMA that sets the usual level of news (surprise = news - it)",
    )


class BondConfig(ConfigModel):
    """Government bonds: floating-coupon perpetuals the treasury issues in the call auctions to cover its deficit."""

    enabled: bool = Field(True, description="list a government bond ('bond') next to steel and the stocks")
    face: Positive = Field(
        100.0, description="par value of one bond: the treasury issues and redeems near it"
    )
    premium: NonNegative = Field(
        0.005,
        description="coupon = policy rate + this a year: a term premium over deposits (50 bp, Adrian et al. 2013)",
    )
    weight: Share = Field(
        0.3,
        description="households' strategic bond holding = this x allocation.invest (a 70/30 stock/bond mix)",
    )
    issue_spread: float = Field(
        0.01,
        ge=0,
        lt=1,
        description="the treasury sells at no less than last price x (1 - this), buys back at most x (1 + this)",
    )
    min_price: PositiveShare = Field(
        0.5, description="the treasury never sells below this x face (a yield at most twice the coupon)"
    )
    deficit_share: float = Field(
        0.0,
        ge=0,
        le=0.5,
        description="spending beyond tax revenue, share of monthly nominal GDP, as equal transfers (0: coupons only)",
    )


class TradingConfig(ConfigModel):
    """Markets for steel and firm shares, traded in call auctions several times per month."""

    enabled: bool = Field(True, description="run the asset and commodity markets (False: macro core only)")
    rounds: Count = Field(20, description="call auctions per month: 20 trading days")
    fee_rate: float = Field(
        0.001, ge=0, lt=1, description="proportional cost per side (10 bp), paid to the government"
    )
    collar: float = Field(
        0.1, gt=0, lt=1, description="market orders execute as limits at last price x (1 +- collar)"
    )
    position_limit: PositiveShare = Field(
        0.1, description="a buy may not take a holding above this share of all units"
    )
    shares_per_household: Positive = Field(
        10.0, description="shares outstanding per firm = this x households (float held by households)"
    )
    opening_invest_share: float = Field(
        0.3,
        gt=0,
        lt=1,
        description="stocks open at this share of household wealth (cash + deposits + stocks)",
    )
    dividend_halflife: Positive = Field(
        24.0, description="months: half-life of the dividend average the fundamental value reads"
    )
    value_floor: PositiveShare = Field(
        0.05, description="a stock's fundamental value never below this share of the mean price"
    )
    steel: bool = Field(True, description="list a steel market with the steel firm as dealer")
    dealer_spread: float = Field(
        0.02, ge=0, lt=1, description="the steel firm quotes its price x (1 -+ this) to buy and sell"
    )
    dealer_share: Share = Field(
        0.02, description="dealer quotes this share of last month's steel output per round"
    )
    investors: InvestorConfig = Field(default_factory=InvestorConfig)
    information: InformationConfig = Field(default_factory=InformationConfig)
    bonds: BondConfig = Field(default_factory=BondConfig)
