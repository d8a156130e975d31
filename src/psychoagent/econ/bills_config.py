"""Households' demand for treasury bills and the bank's legacy stock of them (econ/bills.py); a module of its own so
that the economy's config imports no part of the model."""

from __future__ import annotations

from psychoagent.config import ConfigModel, NonNegative, Share


class BillsConfig(ConfigModel):
    """Households' demand for bills and the bank's legacy stock of them (Godley and Lavoie 2007, model PC)."""

    semi_elasticity: NonNegative = 1.8
    """households' bill share of liquid wealth = this x (policy rate - threshold): money demand
    falls by about 1.8 % of its level per point of the interest rate (interest semi-elasticity of US M1 demand,
    Ireland 2009, 'On the welfare cost of inflation and the recent behavior of money demand'); 0 switches the
    channel off"""
    threshold: NonNegative = 0.01
    """households buy bills only for a policy rate above this: a trip to the bank has a cost that a small spread
    over deposits (which earn up to 0.4 of the rate) does not repay (Baumol 1952, Tobin 1956). Measured from zero,
    as in model PC, where the bill share follows the bill rate's level: measured from the neutral rate (3 %) plus
    2 points, the channel was shut whenever the Taylor rule sat near its floor, and a 4-point hike from there moved
    no money into bills (docs/results.md). 1 % was chosen on seeds 1-10 (0 % and 1 % tried)"""
    max_share: Share = 0.5
    """at most this share of liquid wealth in bills"""
    speed: Share = 0.25
    """share of the gap to the target share closed each month (portfolio adjustment over about a quarter)"""
    bank_months: NonNegative = 3.0
    """the bank's legacy bills, in months of the opening wage bill (about a quarter of GDP: US commercial banks
    and the Federal Reserve held Treasury securities of about 25 % of GDP in 2019, Federal Reserve Z.1); when
    they run out, households' purchases are rationed pro rata"""
