"""Coefficients of the markets and of the persona-driven investors, each with a one-line reason or source."""

from __future__ import annotations

from pydantic import Field

from psychoagent.config import ConfigModel, Count, NonNegative, Positive, PositiveShare, Share


class InvestorConfig(ConfigModel):
    """How households form price expectations and size orders (Brock & Hommes 1998; Lux & Marchesi 1999;
    Chiarella, Iori & Perello 2009): fundamental + trend + herding + optimism + private noise."""

    activity: Share = 0.1
    """chance a neutral household reviews a position in a round"""
    liquidity: Share = 0.5
    """share of the review chance that is there whatever the news and recent moves: liquidity trading (Kyle
    1985), so quiet spells still bring orders (seeds 1-4: with the maker's tuned spread, 0.3 took the stock
    auctions that trade to 80-84 %, 0.5 to 90-91 %; docs/results.md)"""
    attention: NonNegative = 2.0
    """activity x (recent |r| / long-run |r|)^this: big moves draw traders in"""
    horizon: Positive = 20.0
    """rounds ahead an expectation is about (one month)"""
    reversion_rounds: Positive = 300.0
    """value traders expect the gap to value to close at 1/this per round. With the value level anchored
    (`TradingConfig.value_anchor`), 200 made the smaller stocks revert (monthly ACF -0.17 and -0.10 on seeds
    1-8) and 400 let the market trend again (+0.09, one seed +0.48); 300: -0.04 to -0.06 per stock"""
    trend_span: float = Field(2.0, ge=1)
    """EWMA span (rounds) of the return trend chartists read"""
    extrapolation: NonNegative = 0.005
    """chartists expect this x the recent per-round trend to go on over the horizon"""
    trend_base: Share = 0.05
    """trend weight of a household at risk 0, learning 0"""
    trend_risk: NonNegative = 0.5
    """+ this x risk_preference: risk takers chase trends"""
    trend_learning: NonNegative = 0.35
    """+ this x learning_rate: fast (unstable) learners extrapolate more"""
    switching: NonNegative = 1.0
    """intensity of choice beta (Franke & Westerhoff 2012: 1)"""
    predisposition: float = -0.327
    """switching: a0 < 0 leans toward trend following (Franke & Westerhoff 2012)"""
    herd_switch: NonNegative = 3.0
    """switching: + this x (n_value - n_trend); above Franke-Westerhoff's 1.79 so regimes persist"""
    misalignment: NonNegative = 18.43
    """switching: + this x ln(V / P)^2: far from value, value trading attracts"""
    herding: NonNegative = 0.005
    """expected horizon log return per unit of last round's net flow x social_tendency"""
    optimism: NonNegative = 0.01
    """expected horizon log return per unit of optimism"""
    noise_value: NonNegative = 0.0
    """s.d. of news value traders share each round: 0, they read only the dividend value"""
    noise_trend: NonNegative = 0.06
    """s.d. of the chart signal trend followers share each round (common noise)"""
    noise_private: NonNegative = 0.02
    """s.d. of each household's own noise in its expectation (keeps trading two-sided)"""
    tilt: NonNegative = 2.0
    """share of wealth shifted per unit of expected log return x invest x (0.5 + risk)"""
    max_move: Positive = 0.1
    """a limit lies at most this log distance from the last price (price band)"""
    max_share: PositiveShare = 0.9
    """at most this share of wealth in one instrument"""
    min_order_value: NonNegative = 1.0
    """orders worth less than this (currency) are not sent: no dust trading"""
    initial_volatility: Positive = 0.01
    """per-round return s.d. assumed before any trade (1 % a day)"""
    attention_range: tuple[float, float] = (0.5, 3.0)
    """bounds of the attention ratio: calm markets never empty, panics saturate"""
    attention_fast: PositiveShare = 0.2
    """EWMA weight of |r| in recent volatility"""
    attention_slow: PositiveShare = 0.005
    """EWMA weight of |r| in long-run volatility"""


class InformationConfig(ConfigModel):
    """Information arrival that drives trading and price changes together: the mixture-of-distributions hypothesis
    (Clark 1973; Tauchen & Pitts 1983), with persistent arrival as in Andersen (1996)."""

    enabled: bool = True
    """scale trading and news by an information intensity per instrument"""
    persistence: float = Field(0.98, ge=0, lt=1)
    """AR(1) coefficient of log intensity per round (a day): information comes in spells; 0.98 as daily log
    variance in Kim, Shephard & Chib (1998)"""
    dispersion: NonNegative = 0.78
    """stationary s.d. of log intensity: 0.16 / sqrt(1 - 0.98^2), the daily log-variance shocks of Kim,
    Shephard & Chib (1998, exchange rates)"""
    activity: NonNegative = 1.0
    """review chance x intensity^this (Tauchen & Pitts: traders react to each event)"""
    shared: NonNegative = 0.5
    """s.d. of the news a style's followers share x intensity^this (Clark 1973: variance per event)"""
    disagreement: NonNegative = 1.0
    """s.d. of each household's own reading x intensity^this: opinions spread as news comes (Harris & Raviv
    1993; Kandel & Pearson 1995: public news is read differently, so it brings volume)"""
    headlines: NonNegative = 0.5
    """log intensity + this x (the month's summed |sentiment| of news - its usual level) at the session's
    start: announcements bring trading and volatility (Flannery & Protopapadakis 2002)"""
    news_memory: float = Field(12.0, ge=1)
    """months: span of the EWMA that sets the usual level of news (surprise = news - it)"""


class BondConfig(ConfigModel):
    """Government bonds: floating-coupon perpetuals the treasury issues in the call auctions to cover its deficit."""

    enabled: bool = True
    """list a government bond ('bond') next to steel and the stocks"""
    face: Positive = 100.0
    """par value of one bond: the treasury issues and redeems near it"""
    premium: NonNegative = 0.005
    """coupon = policy rate + this a year: a term premium over deposits (50 bp, Adrian et al. 2013)"""
    weight: Share = 0.3
    """households' strategic bond holding = this x allocation.invest (a 70/30 stock/bond mix) at the neutral
    policy rate (natural rate + inflation target)"""
    rate_weight: NonNegative = 5.0
    """the strategic bond weight rises by this x the policy rate's gap to neutral (clipped to [0, 1]): the demand
    for bills in Godley and Lavoie's model PC (2007, ch. 4: bills' share of wealth = lambda0 + lambda1 r - ...,
    lambda1 = 5), so a hike moves wealth from deposits toward bonds; 0 keeps the weight fixed"""
    issue_spread: float = Field(0.01, ge=0, lt=1)
    """the treasury sells at no less than last price x (1 - this), buys back at most x (1 + this)"""
    min_price: PositiveShare = 0.5
    """the treasury never sells below this x face (a yield at most twice the coupon)"""
    deficit_share: float = Field(0.0, ge=0, le=0.5)
    """spending beyond tax revenue, share of monthly nominal GDP, as equal transfers (0: coupons only)"""


class MakerConfig(ConfigModel):
    """A designated market maker in each stock and in steel with inventory control (Ho & Stoll 1981; Avellaneda & Stoikov
    2008): it quotes both sides of every auction around the last price, skewed against its inventory."""

    enabled: bool = True
    """make a market in every stock (False: households trade only with each other)"""
    steel: bool = False
    """make a market in steel too, next to the steel firm's dealer, which can sell only from its stock: in 14 % of
    steel auctions it had none, and fewer than half of those traded (seeds 1-2). Steel auctions that trade,
    cognitive households: 0.76 -> 0.85 on seeds 1-8 (tuning), 0.72 -> 0.81 on 2135-2142 (held out); monthly ACF
    -0.14 -> -0.12 and -0.13 -> -0.06 (docs/results.md). Off by default until the tests whose small economies it
    changes are re-examined"""
    inventory_share: Share = 0.05
    """share of each stock's float the maker takes at the opening and aims to hold (a modelling choice: enough
    to quote for many rounds, small against households' holdings)"""
    capital: NonNegative = 1.0
    """cash households subscribe at the opening, x the value of that inventory: it can buy as much as it sells"""
    min_half_spread: NonNegative = 0.001
    """smallest log half-spread (10 bp; tuned on seeds 1-4, docs/results.md)"""
    spread_vol: NonNegative = 0.25
    """half-spread >= this x recent mean |return| per round: a dealer's spread rises with the risk of holding
    inventory (Ho & Stoll 1981; Avellaneda & Stoikov 2008: gamma sigma^2 (T - t)); 1 left most household
    orders inside the spread (64 % of auctions traded on seeds 1-4), tuned to 0.25"""
    skew: NonNegative = 0.02
    """log shift of both quotes per unit of inventory gap (q - q*) / q*: Ho & Stoll's inventory effect"""
    flow: NonNegative = 0.0075
    """log shift of both quotes per unit of last round's net order flow (bids - asks) / (bids + asks): quotes
    learn from the order flow (Glosten & Milgrom 1985; Kyle 1985's lambda). Without it, prices followed
    persistent flows too slowly (stocks' monthly ACF +0.03 to +0.24 on seeds 1-4; 0.005: +0.10); 0.01
    overshot (-0.10 to -0.06): tuned to 0.0075"""
    flow_trend: NonNegative = 0.0
    """log shift of both quotes per unit of the net order flow's EWMA over `flow_span` auctions: a run of
    one-sided rounds is read as information the price has not yet reached (Glosten & Milgrom 1985). 0.02 (tuned
    on seeds 1-10) took the stocks' mean monthly ACF on held-out seeds 701-710 from +0.130/+0.037/+0.083 to
    -0.007/-0.088/-0.069 and the market's from +0.18 to +0.02, but the rate hike then met its three conditions
    on 12 of 20 seeds instead of 15, and steel reverted more (ACF -0.16): off by default (docs/results.md)"""
    flow_span: float = Field(20.0, ge=1)
    """EWMA span (auctions) of the order flow `flow_trend` reads: a month of rounds"""
    size: PositiveShare = 0.05
    """units offered per side and auction, x the target inventory q*"""
    band: PositiveShare = 1.0
    """the inventory stays within (1 -+ this) x q*: no short sales, a bounded position"""
    payout: Share = 0.5
    """share of its cash above the capital paid to households (its owners) at each session's end"""


class TradingConfig(ConfigModel):
    """Markets for steel and firm shares, traded in call auctions several times per month."""

    enabled: bool = True
    """run the asset and commodity markets (False: macro core only)"""
    rounds: Count = 20
    """call auctions per month: 20 trading days"""
    fee_rate: float = Field(0.001, ge=0, lt=1)
    """proportional cost per side (10 bp), paid to the government"""
    collar: float = Field(0.1, gt=0, lt=1)
    """market orders execute as limits at last price x (1 +- collar)"""
    position_limit: PositiveShare = 0.1
    """a buy may not take a holding above this share of all units"""
    shares_per_household: Positive = 10.0
    """shares outstanding per firm = this x households (float held by households)"""
    opening_invest_share: float = Field(0.3, gt=0, lt=1)
    """stocks open at this share of household wealth (cash + deposits + stocks)"""
    value_anchor: bool = True
    """the stocks' values add up to households' money x the market's long-run ratio to it (markets/state.py).
    False: to the market's own price sum, as before: nothing anchored the level of the whole market, and in
    2 of 8 tuning seeds (1-8, cognitive households) it rose 10-40 times in a few years on thin volume while
    optimistic households' traits saturated, then fell back (stocks' monthly ACF +0.25, the market's +0.29)"""
    value_halflife: Positive = 60.0
    """months: half-life of the market-to-money ratio the value level reads: long against a run-up of a year or
    two, short against 20 years (at 60 and reversion_rounds 300: the market's monthly ACF -0.03 on seeds 1-8,
    range -0.17 to +0.05)"""
    dividend_halflife: Positive = 24.0
    """months: half-life of the dividend average the fundamental value reads"""
    value_floor: PositiveShare = 0.05
    """a stock's fundamental value never below this share of the mean price"""
    steel: bool = True
    """list a steel market with the steel firm as dealer"""
    steel_reset: bool = False
    """each session opens steel at the producer's price (True: month-end deviations from it were undone every
    month, which made monthly steel returns revert, ACF -0.27 over seeds 1-10); False: at last month's price"""
    dealer_spread: float = Field(0.01, ge=0, lt=1)
    """the steel firm quotes its quote centre x (1 -+ this) to buy and sell (tuned on seeds 1-4; was 0.02)"""
    steel_weight: Share = 0.1
    """households' strategic steel holding = this x allocation.invest of wealth: a commodity as a small part of
    a portfolio, so households hold steel and trade it both ways (0: nearly nobody holds it; in a diagnostic run,
    seed 3, 88 % of steel auctions had no household order); tuned on seeds 1-4"""
    dealer_anchor: Share = 0.005
    """the dealer quotes around last price^(1 - this) x its posted price^this: its posted price pulls the market
    0.5 % of the gap a round (10 % a month; 1: quotes at its posted price, as before). A stronger pull makes
    month-end deviations revert (0.02: monthly ACF -0.18 on seeds 1-4); tuned on seeds 1-4"""
    dealer_share: Share = 0.02
    """dealer quotes this share of last month's steel output per round"""
    investors: InvestorConfig = Field(default_factory=InvestorConfig)
    information: InformationConfig = Field(default_factory=InformationConfig)
    bonds: BondConfig = Field(default_factory=BondConfig)
    maker: MakerConfig = Field(default_factory=MakerConfig)

    @property
    def opening_ratio(self) -> float:
        """Stocks over households' money at the opening: a / (1 - a), a = opening_invest_share."""
        a = self.opening_invest_share
        return a / (1.0 - a)
