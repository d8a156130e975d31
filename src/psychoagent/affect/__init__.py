"""Appraisal: event or text -> Affect (valence, arousal, conflict intensity, conflict parties, reason)."""

from psychoagent.affect.config import AffectConfig, HeuristicConfig, LLMAppraiserConfig, OutcomeConfig
from psychoagent.affect.contracts import Appraiser, ChatModel
from psychoagent.affect.head import AffectHeads, LinearHead, load_heads
from psychoagent.affect.heuristic import HeuristicAppraiser
from psychoagent.affect.llm import LLMAppraiser, affect_schema, parse_affect
from psychoagent.affect.outcome import OutcomeEvent, appraise_outcome
from psychoagent.affect.scheme import SCHEMES, LabelScheme, Rule, get_scheme, quantise
from psychoagent.affect.slots import Slot, extract_slots
from psychoagent.affect.stabilise import StabilisedAppraiser, majority

__all__ = [
    "SCHEMES",
    "AffectConfig",
    "AffectHeads",
    "Appraiser",
    "ChatModel",
    "HeuristicAppraiser",
    "HeuristicConfig",
    "LLMAppraiser",
    "LLMAppraiserConfig",
    "LabelScheme",
    "LinearHead",
    "OutcomeConfig",
    "OutcomeEvent",
    "Rule",
    "Slot",
    "StabilisedAppraiser",
    "affect_schema",
    "appraise_outcome",
    "extract_slots",
    "get_scheme",
    "load_heads",
    "majority",
    "parse_affect",
    "quantise",
]
