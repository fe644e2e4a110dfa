from clinqa.evaluation.weights import clinical_terms, dynamic_weights


def test_clinical_terms() -> None:
    assert clinical_terms("CHA2DS2-VASc score and HbA1c in CKD after thrombectomy for me") == [
        "CHA2DS2-VASc", "HbA1c", "CKD", "thrombectomy"]


def test_dynamic_weights() -> None:
    assert dynamic_weights("What is qSOFA?") == (0.7, 0.3)
    assert dynamic_weights("Anticoagulation with CHA2DS2-VASc 2 and CKD stage G3b") == (0.3, 0.7)
    assert dynamic_weights("What does the sepsis guideline say about fluids?") == (0.3, 0.7)
    assert dynamic_weights("How should I treat a gout flare?") == (0.5, 0.5)
