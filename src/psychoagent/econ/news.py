"""News generator: turns last month's indicators into headlines with a sentiment, like a statistics office."""

from __future__ import annotations

from collections.abc import Mapping

from psychoagent.econ.snapshot import NewsItem


class NewsGenerator:
    """Reports monthly moves of prices, unemployment and output that exceed `threshold`.

    Sentiment is the size of the move relative to `scale`, clipped to [-1, 1]; rising prices and unemployment
    read as bad news, rising output as good news.
    """

    def __init__(self, threshold: float = 0.01, scale: float = 0.05) -> None:
        if threshold < 0 or scale <= 0:
            raise ValueError("threshold must be >= 0 and scale > 0")
        self.threshold = threshold
        self.scale = scale

    def _mood(self, change: float) -> float:
        return max(-1.0, min(1.0, change / self.scale))

    def generate(self, tick: int, now: Mapping[str, float], before: Mapping[str, float]) -> list[NewsItem]:
        """News for `tick` from the indicators of the two previous ticks (keys: price_level, unemployment,
        real_gdp); no news when a value is missing or not positive."""
        out: list[NewsItem] = []
        p0, p1 = before.get("price_level", 0.0), now.get("price_level", 0.0)
        if p0 > 0 and p1 > 0 and abs(p1 / p0 - 1) > self.threshold:
            g = p1 / p0 - 1
            word = "rise" if g > 0 else "fall"
            out.append(
                NewsItem(tick, f"Consumer prices {word} {abs(g):.1%} in a month", -self._mood(g), "prices")
            )
        u0, u1 = before.get("unemployment"), now.get("unemployment")
        if u0 is not None and u1 is not None and abs(u1 - u0) > self.threshold:
            word = "rises" if u1 > u0 else "falls"
            out.append(NewsItem(tick, f"Unemployment {word} to {u1:.1%}", -self._mood(u1 - u0), "jobs"))
        y0, y1 = before.get("real_gdp", 0.0), now.get("real_gdp", 0.0)
        if y0 > 0 and y1 > 0 and abs(y1 / y0 - 1) > 2 * self.threshold:
            g = y1 / y0 - 1
            word = "grows" if g > 0 else "shrinks"
            out.append(NewsItem(tick, f"Output {word} {abs(g):.1%} in a month", self._mood(g), "output"))
        return out
