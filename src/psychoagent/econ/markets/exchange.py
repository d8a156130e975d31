"""The model's markets: steel, one stock per firm and a government bond, cleared in call auctions several rounds
per month (the bond's issuer side, coupons and yields: markets/bonds.py).

Ownership: shares outstanding per firm = shares_per_household x households, all held by households; the opening
float follows the macro core's equity weights (by skill), so dividends are unchanged until households trade.
Steel is held by households and by the steel firm, which acts as dealer (quotes both sides around a centre its
posted price pulls the last price toward, `dealer_anchor`); a designated market maker (markets/maker.py) holds
part of each stock's float and cash (with `maker.steel`, also steel it bought from the steel firm) and quotes both
sides of every auction it makes a market in; units change hands only in auctions, so shares and steel are
conserved. Money moves between buyers, sellers and the dealer; fees (fee_rate per side) are pooled and returned
as an equal lump sum to households at the end of the session with the maker's payout, so total money is
conserved and the cost still falls on those who trade.

A session (one per month, inside `model.step()` after the goods market) starts by folding the month's news
surprise into each instrument's information intensity (markets/state.py), then runs `rounds` rounds; in each,
position caps are computed, agents' resting orders are trimmed to their cash and holdings, the intensity
advances, investors decide once for all instruments, then each instrument is auctioned in a fixed order (steel,
then the stocks in firm order, then the bond). An auction without a cross moves the reference price to the best
bid above (or best ask below) the last price; in steel, the maker's quotes alone do not move it (its steel comes
only from the producer, and where nobody sold, its bid rose with its inventory gap round after round).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any

import numpy as np

from psychoagent.econ.investors import Holdings, OrderArrays, Signals, investor_orders
from psychoagent.econ.markets.bonds import Treasury
from psychoagent.econ.markets.clearing import call_auction, quote_price
from psychoagent.econ.markets.intake import Book, Resting, Ticket, check, live_orders, parse
from psychoagent.econ.markets.maker import MAKER, MarketMaker
from psychoagent.econ.markets.notices import publish_session, report_fill
from psychoagent.econ.markets.settlement import book_side, dealer_quotes, settle_households
from psychoagent.econ.markets.state import MarketState
from psychoagent.econ.orders import BOND, STEEL, Fill, Order, Quote, Receipt, Rejection, Side, stock
from psychoagent.events import EventType

if TYPE_CHECKING:
    from psychoagent.econ.contracts import Economy
    from psychoagent.econ.firm import Firm
    from psychoagent.econ.shocks import Levers

ASSET_COLUMNS = ("period", "tick", "round", "asset", "price", "volume", "return", "value",
                 "bid_quantity", "ask_quantity", "chartist_share", "yield")  # fmt: skip
"""Columns of assets.csv: one row per instrument per auction (period = (tick - 1) x rounds + round + 1); `yield`
(annual coupon / price) is filled for the bond only."""


class Markets:
    """Listed instruments, households' holdings, the order queue and the auctions of each tick's session."""

    def __init__(self, model: Economy) -> None:
        self.model = model
        self.cfg = model.config.trading
        n = model.households.n
        names = model.sector_names
        ids: list[str] = []
        if self.cfg.enabled:
            ids = ([STEEL] if self.cfg.steel and STEEL in names else []) + [
                stock(f.name) for f in model.firms
            ]
            ids += [BOND] if self.cfg.bonds.enabled else []
        self._ids = tuple(ids)
        self.treasury = Treasury(model, self.cfg.bonds, self.bonds_outstanding)
        self.col = {inst: k for k, inst in enumerate(ids)}
        self.firm_col = {f.index: self.col[stock(f.name)] for f in model.firms if stock(f.name) in self.col}
        self.shares = float(self.cfg.shares_per_household * n)
        self.units = np.zeros((n, len(ids)))
        for k in self.firm_col.values():
            self.units[:, k] = model.households.equity * self.shares
        self.state = MarketState(len(ids), self.cfg, list(self.firm_col.values()))
        made = list(self.firm_col.values()) + (
            [self.col[STEEL]] if STEEL in self.col and self.cfg.maker.steel else []
        )
        self.maker = MarketMaker(self.cfg.maker, len(ids), made)
        if BOND in self.col:
            hh = model.households
            self.units[:, self.col[BOND]] = self.treasury.opening_units(hh.wealth, hh.allocation[:, 2])
            self.state.value[self.col[BOND]] = self.cfg.bonds.face
        self.self_directed = np.zeros(n, dtype=bool)
        self.records: list[tuple[Any, ...]] = []
        self.rejections: Counter[str] = Counter()
        self.fees = 0.0
        self._queue: list[Ticket] = []
        self._book = Book.empty()
        self._fills: dict[int, list[Fill]] = {}
        self._div = np.zeros(len(ids))
        self._seq = 0

    # -- what agents use -----------------------------------------------------------------------------------------

    @property
    def instruments(self) -> tuple[str, ...]:
        """Listed instrument ids, in clearing order."""
        return self._ids

    def quote(self, instrument: str) -> Quote:
        """Last price, value, return, session volume and net flow of a listed instrument."""
        k = self.col.get(instrument)
        if k is None:
            raise ValueError(f"{instrument!r} is not listed; listed: {list(self._ids)}")
        s = self.state
        return Quote(instrument=instrument, price=float(s.price[k]), fundamental=float(s.value[k]),
                     last_return=float(s.last_return[k]), volume=float(s.session_volume[k]),
                     net_flow=float(s.flow[k]))  # fmt: skip

    @property
    def fee_rate(self) -> float:
        """Proportional cost per side of a trade."""
        return self.cfg.fee_rate

    def prices(self) -> dict[str, float]:
        """Last price of every listed instrument."""
        return {inst: float(self.state.price[k]) for k, inst in enumerate(self._ids)}

    def risky_values(self) -> np.ndarray:
        """Each household's stocks and steel at the last prices (bonds are not risky): the agents table's
        `risky_value`, what the experience metrics read."""
        cols = [k for k, inst in enumerate(self._ids) if inst != BOND]
        if not cols:
            return np.zeros(self.model.households.n)
        return np.asarray(self.units[:, cols] @ self.state.price[cols], dtype=float)

    def holdings(self, agent_id: int) -> dict[str, float]:
        """Units household `agent_id` holds of each listed instrument."""
        return dict(zip(self._ids, self.units[agent_id].tolist(), strict=True))

    def yield_of(self, instrument: str) -> float | None:
        """Annual yield at the last price of a bond (coupon / price); None for other instruments."""
        k = self.col.get(instrument)
        return (
            self.treasury.yield_at(float(self.state.price[k]))
            if instrument == BOND and k is not None
            else None
        )

    def government_payments(self, nominal_gdp: float) -> tuple[np.ndarray, np.ndarray]:
        """This month's bond coupons and deficit transfers per household (zeros without a bond market)."""
        k = self.col.get(BOND)
        if k is None:
            n = self.units.shape[0]
            return np.zeros(n), np.zeros(n)
        return self.treasury.pay(self.units[:, k], nominal_gdp)

    def fills(self, agent_id: int) -> list[Fill]:
        """Fills (quantity 0: expired unfilled) of the agent's orders in the last session."""
        return list(self._fills.get(agent_id, []))

    def submit(self, orders: Iterable[Order | Mapping[str, Any]]) -> Receipt:
        """Queue orders for the next session (they rest in all its auctions); malformed or infeasible ones are
        rejected with a reason, counted in `rejections` and published as market.order_rejected."""
        accepted: list[str] = []
        rejected: list[Rejection] = []
        t = self.model.tick
        limits: dict[str, Any] | None = None  # read once: nothing in the loop moves cash, units or prices
        for raw in orders:
            self._seq += 1
            oid = f"o{t}-{self._seq}"
            parsed = parse(raw, oid)
            got: Ticket | Rejection
            if isinstance(parsed, Rejection):
                got = parsed
            else:
                oid = parsed.order_id or oid
                if not self.cfg.enabled:
                    got = Rejection(order_id=oid, agent_id=parsed.agent_id, reason="markets_closed",
                                    detail="trading is switched off (trading.enabled = false)")  # fmt: skip
                else:
                    limits = limits if limits is not None else self._limits()
                    got = check(parsed, oid, **limits, book=self._book)
            if isinstance(got, Rejection):
                self._reject(got, t)
                rejected.append(got)
            else:
                self._queue.append(got)
                accepted.append(got.order_id)
        return Receipt(accepted=tuple(accepted), rejected=tuple(rejected))

    # -- called by the model -------------------------------------------------------------------------------------

    def pay_dividend(self, firm: Firm, payout: float) -> np.ndarray:
        """Split a firm's payout over households by shares held (the shares add up to all of it)."""
        k = self.firm_col.get(firm.index)
        if k is None:
            return payout * self.model.households.equity
        self._div[k] += payout / self.shares
        self.maker.dividend(k, payout / self.shares)
        return payout * self.units[:, k] / self.shares

    def session(self, t: int) -> None:
        """Run the tick's auctions: queued orders rest in every auction until filled; investors' orders are
        formed afresh each round; what is left of the queued orders at the end expires."""
        if not self._ids:
            return
        self._fills = {}
        steel = self._steel_firm()
        producer = steel.price if steel is not None else None
        money = float(np.maximum(self.model.households.wealth, 0.0).sum()) / self.shares
        self.state.update_values(self._div, producer, self._opening, self.col.get(STEEL), money)
        if not self.maker.opened:
            self.maker.open(self.units, self.state.price, self.model.households.deposits)
        if steel is not None:
            self._stock_maker(steel)
        self._div[:] = 0.0
        self._crash(self.model.levers)
        book = [Resting(ticket, ticket.quantity) for ticket in self._recheck(t)]
        self.state.session_volume[:] = 0.0
        self.state.hear(sum(abs(item.sentiment) for item in self.model.snapshot().news))
        fees0 = self.fees
        dealer_net = 0.0
        by_inst = {k: [rest for rest in book if rest.ticket.order.instrument == k] for k in self._ids}
        for r in range(self.cfg.rounds):
            dealer_net += self._round(t, r, by_inst)
            by_inst = {k: [rest for rest in v if rest.remaining > 1e-12] for k, v in by_inst.items()}  # fmt: skip
        self._rebate(self.fees - fees0 + self.maker.pay_out())
        last = self.cfg.rounds - 1
        for rest in (rest for rest in book if rest.remaining > 1e-12):  # what is left expires
            price = float(self.state.price[self.col[rest.ticket.order.instrument]])
            report_fill(self.model.bus, self._fills, self.cfg.fee_rate, t, last, rest, 0.0, price)
        if steel is not None:
            steel.sold += dealer_net
            steel.demand += max(dealer_net, 0.0)
        publish_session(self.model.bus, self.state, self.records, self._ids, self.cfg.rounds, t)

    # -- internals -----------------------------------------------------------------------------------------------

    def _crash(self, levers: Levers) -> None:
        """A market crash in force (econ/shocks.py): stocks open at the gap, read by traders as that move, and
        are valued at the haircut."""
        cols = list(self.firm_col.values())
        if levers.stock_gap != 1.0:
            for k in cols:
                self.state.after_auction(k, float(self.state.price[k]) * levers.stock_gap, 0.0, 0.0, 0.0)
        self.state.value[cols] *= levers.stock_value

    def _opening(self) -> np.ndarray:
        """Opening prices: stocks worth opening_invest_share of household wealth, split by firm wage bills."""
        hh = self.model.households
        total = self.cfg.opening_ratio * float(np.maximum(hh.wealth, 0.0).sum())
        prices = np.ones(len(self._ids))
        if self.firm_col:
            size = np.array([max(self.model.firms[i].wage_bill, 1.0) for i in self.firm_col])
            prices[list(self.firm_col.values())] = total * size / size.sum() / self.shares
        if BOND in self.col:
            prices[self.col[BOND]] = self.cfg.bonds.face
        return prices

    def _stock_maker(self, steel: Firm) -> None:
        """The maker buys its steel from the steel firm's stock once the firm has some (`MarketMaker.stock_up`)."""
        hh, k = self.model.households, self.col[STEEL]
        if k not in self.maker.cols or self.maker.target[k] > 0:
            return
        held = float((np.clip(hh.allocation[:, 2], 0, 1) * np.maximum(hh.wealth, 0.0)).sum())
        price = float(self.state.price[k])
        bought = self.maker.stock_up(
            k, self.cfg.steel_weight * held / price, steel.inventory, price, hh.deposits
        )
        if bought > 0:
            steel.inventory -= bought
            steel.cash += bought * price

    def bonds_outstanding(self) -> float:  # bond units households hold (what the treasury reads)
        return 0.0 if BOND not in self.col else float(self.units[:, self.col[BOND]].sum())

    def _steel_firm(self) -> Firm | None:
        if STEEL not in self.col:
            return None
        return self.model.firms[self.model.sector_names.index(STEEL)]

    def position_caps(self) -> dict[str, float]:
        """Most units of each instrument one household may hold: position_limit x all units (steel: with the
        dealer's stock; bond: with what the treasury offers)."""
        lim = self.cfg.position_limit
        caps = {inst: lim * self.shares for inst in self._ids}
        if STEEL in self.col:
            firm = self._steel_firm()
            total = self.units[:, self.col[STEEL]].sum() + (firm.inventory if firm else 0.0)
            caps[STEEL] = lim * max(total, 1.0)
        if BOND in self.col:
            offered = max(-self.model.gov_balance, 0.0) / self.cfg.bonds.face
            caps[BOND] = lim * max(self.treasury.outstanding() + offered, 1.0)
        return caps

    def _limits(self) -> dict[str, Any]:
        hh = self.model.households
        return {"instruments": self._ids, "prices": self.prices(), "cash": hh.cash + hh.deposits,
                "units": {inst: self.units[:, k] for k, inst in enumerate(self._ids)}, "caps": self.position_caps(),
                "fee_rate": self.cfg.fee_rate, "collar": self.cfg.collar}  # fmt: skip

    def _reject(self, rej: Rejection, t: int) -> None:
        self.rejections[rej.reason] += 1
        src = f"household:{rej.agent_id}" if rej.agent_id >= 0 else "market"
        self.model.bus.emit(t, EventType.ORDER_REJECTED, rej.model_dump(mode="json"), src)

    def _recheck(self, t: int) -> list[Ticket]:
        """Test queued orders again against the state at the session: spending may have used some of the cash,
        so a buy shrinks to what the cash left still pays for (rejected only when nothing is left)."""
        queue, self._queue, self._book = self._queue, [], Book.empty()
        book, limits, out = Book.empty(), self._limits(), []
        cash, per_unit = limits["cash"], 1.0 + self.cfg.fee_rate
        for ticket in queue:
            qty, i = ticket.quantity, ticket.order.agent_id
            if ticket.order.side is Side.BUY and i < cash.size:
                free = float(cash[i]) - book.cash.get(i, 0.0)
                qty = min(qty, free / (ticket.limit * per_unit)) if free > 0 else qty
            order = ticket.order.model_copy(update={"quantity": qty, "budget_share": None,
                                                    "limit_price": ticket.limit})  # fmt: skip
            got = check(order, ticket.order_id, **limits, book=book)
            if isinstance(got, Rejection):
                self._reject(got, t)
            else:
                out.append(got)
        return out

    def _round(self, t: int, r: int, book: Mapping[str, list[Resting]]) -> float:
        """One round: agents' live orders (by instrument), the investors' orders for every instrument, then each auction."""
        hh, s, k_all = self.model.households, self.state, len(self._ids)
        caps = self.position_caps()
        cash = hh.cash + hh.deposits
        wealth = cash + self.units @ s.price
        units = self.units
        spent: dict[int, float] = {}
        live = [live_orders(book[inst], inst, cash, self.units[:, k], spent, self.cfg.fee_rate)
                for k, inst in enumerate(self._ids)]  # fmt: skip
        if any(b or a for b, a in live):  # what agents' own orders commit is not the heuristic's to use again
            fee, cash, units = self.cfg.fee_rate, cash.copy(), units.copy()
            for k, (qb, qa) in enumerate(live):
                for q in qb:
                    cash[q.ticket.order.agent_id] -= q.remaining * q.ticket.limit * (1.0 + fee)
                for q in qa:
                    units[q.ticket.order.agent_id, k] -= q.remaining
        rng = self.model.streams.markets
        news = rng.standard_normal((2, k_all))
        arrivals, shared, private = s.step_information(rng)
        sig = Signals(price=s.price.copy(), fundamental=s.value.copy(), trend=s.trend.copy(),
                      attention=s.attention_all(), flow=s.flow.copy(), chartist_share=s.chartist.copy(),
                      weight=self._weights(), news_value=news[0], news_trend=news[1], arrivals=arrivals,
                      spread_shared=shared, spread_private=private)  # fmt: skip
        hold = Holdings(
            cash=cash, units=units, wealth=wealth, unit_cap=np.array([caps[i] for i in self._ids])
        )
        orders = investor_orders(sig, hh.traits, hh.allocation[:, 2], hold, self.cfg.investors, self.cfg.fee_rate,
                                 rng, allowed=~self.self_directed)  # fmt: skip
        net = 0.0
        for k, inst in enumerate(self._ids):
            net += self._auction(t, r, k, inst, live[k], orders[k])
        return net

    def _auction(self, t: int, r: int, k: int, inst: str, live: tuple[list[Resting], list[Resting]],
                 orders: tuple[OrderArrays, OrderArrays]) -> float:  # fmt: skip
        """One call auction of instrument column k; returns the steel dealer's net sale."""
        s = self.state
        (qb, qa), (bids, asks) = live, orders
        dealer = self._dealer_quotes(k, inst)
        maker = self.maker.quotes(
            k, float(s.price[k]), float(s.abs_fast[k]), float(s.flow[k]), self.cfg.fee_rate
        )
        dealer = (OrderArrays.join(dealer[0], maker[0]), OrderArrays.join(dealer[1], maker[1]))
        b_own, b_px, b_q = book_side(bids, qb, dealer[0])
        a_own, a_px, a_q = book_side(asks, qa, dealer[1])
        res = call_auction(b_px, b_q, a_px, a_q, float(s.price[k]))
        dealer_net, price = 0.0, res.price
        others = (b_own != MAKER, a_own != MAKER)  # the flow investors and the maker read is everyone else's
        if res.traded:
            dealer_net = self._settle(k, res.price, b_own, res.bid_fill, a_own, res.ask_fill)
        elif inst == STEEL:  # the maker's quotes alone do not move steel (module docstring)
            price = quote_price(b_px[others[0]], a_px[others[1]], res.price)
        else:
            price = quote_price(b_px, a_px, res.price)
        ret = s.after_auction(k, price, res.volume, float(b_q[others[0]].sum()), float(a_q[others[1]].sum()))
        period = (t - 1) * self.cfg.rounds + r + 1
        y = self.treasury.yield_at(price) if inst == BOND else None
        self.records.append((period, t, r, inst, price, res.volume, ret, float(s.value[k]),
                             float(b_q.sum()), float(a_q.sum()), float(s.chartist[k]), y))  # fmt: skip
        for rests, fills in ((qb, res.bid_fill[bids.agent.size :]), (qa, res.ask_fill[asks.agent.size :])):
            for rest, q in zip(rests, fills.tolist(), strict=False):
                if q > 0:
                    rest.remaining = max(rest.remaining - q, 0.0)
                    report_fill(self.model.bus, self._fills, self.cfg.fee_rate, t, r, rest, q, res.price)
        return dealer_net

    def _weights(self) -> np.ndarray:
        """Strategic weight of each instrument in a household portfolio: its market-cap share (steel: steel_weight)."""
        w = np.zeros(len(self._ids))
        if STEEL in self.col:
            w[self.col[STEEL]] = self.cfg.steel_weight
        cols = list(self.firm_col.values())
        if cols:
            w[cols] = self.state.price[cols] / self.state.price[cols].sum()
        if BOND in self.col:
            w[self.col[BOND]] = self.treasury.weight()
        return w

    def _dealer_quotes(self, k: int, inst: str) -> tuple[OrderArrays, OrderArrays]:
        if inst == BOND:
            return self.treasury.quotes(float(self.state.price[k]))
        firm = self._steel_firm()
        if inst != STEEL or firm is None:
            return OrderArrays.empty(), OrderArrays.empty()
        a, last = self.cfg.dealer_anchor, float(self.state.price[k])
        centre = last * (firm.price / last) ** a
        return dealer_quotes(
            centre, firm.produced, firm.inventory, self.cfg.dealer_spread, self.cfg.dealer_share
        )

    def _settle(self, k: int, price: float, b_own: np.ndarray, b_fill: np.ndarray,
                a_own: np.ndarray, a_fill: np.ndarray) -> float:  # fmt: skip
        """Move units and money for one auction; fees go to the pool; returns the steel dealer's net sale."""
        hh, fee = self.model.households, self.cfg.fee_rate
        units = self.units[:, k]  # a view: settled in place
        got = settle_households(units, hh.cash, hh.deposits, price, fee, b_own, b_fill, a_own, a_fill)
        sold, bought = got.dealer_sold, got.dealer_bought
        paid = got.paid + (bought + got.maker_bought) * price * (1.0 + fee)
        received = got.received + (sold + got.maker_sold) * price * (1.0 - fee)
        if got.maker_sold or got.maker_bought:
            self.maker.settle(k, got.maker_sold, got.maker_bought, price, fee)
        if (sold or bought) and k == self.col.get(BOND):
            self.treasury.settle(sold, bought, price, fee)
            sold = bought = 0.0  # the steel dealer's net sale is what the caller books
        elif sold or bought:
            firm = self._steel_firm()
            assert firm is not None
            firm.inventory += bought - sold
            firm.cash += sold * price * (1.0 - fee) - bought * price * (1.0 + fee)
        self.fees += paid - received
        return sold - bought

    def _rebate(self, pool: float) -> None:
        """Return the session's fees and the maker's payout to households as an equal lump sum (keeps money
        conserved)."""
        hh = self.model.households
        if pool:
            hh.cash += pool / hh.n
