"""Answer stage: the refusal gate, extractive answers and the Answer/Citation types."""

from clinqa.answer.extractive import extract_answer, units_of
from clinqa.answer.gate import GateDecision, RefusalGate, gate_signal
from clinqa.answer.types import Answer, Citation

__all__ = ["Answer", "Citation", "GateDecision", "RefusalGate", "extract_answer", "gate_signal", "units_of"]
