"""Markets of the economy: steel and one stock per firm, cleared in uniform-price call auctions."""

from psychoagent.econ.markets.clearing import AuctionResult, call_auction
from psychoagent.econ.markets.config import InvestorConfig, TradingConfig
from psychoagent.econ.markets.exchange import ASSET_COLUMNS, Markets

__all__ = ["ASSET_COLUMNS", "AuctionResult", "InvestorConfig", "Markets", "TradingConfig", "call_auction"]
