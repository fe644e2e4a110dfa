"""Answer stage: the refusal gate, extractive answers and the Answer/Citation types."""

from clinqa.answer.extractive import extract_answer, units_of
from clinqa.answer.gate import CosineGate, GateDecision
from clinqa.answer.types import Answer, Citation

__all__ = ["Answer", "Citation", "CosineGate", "GateDecision", "extract_answer", "units_of"]
