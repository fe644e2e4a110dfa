"""Builds notes.jsonl and questions.jsonl for the blind clinical-notes recency set.

All patients, notes and values are synthetic (invented). Run: python3 build_data.py
"""
import json
import os

HERE = os.path.dirname(os.path.abspath(__file__))

# (patient_id, note_id, date, note_type, author_role, text)
NOTES = [
    # ---------------- Q01: AF, warfarin -> apixaban, dose reduction, hold for colonoscopy
    ("Q01", "n1", "2019-03-12", "clinic", "physician",
     "74F here for f/u. PMH: AF (CHA2DS2-VASc 5), HTN, CKD3a, OA. On warfarin 5 mg daily for anticoagulation, INR 2.4 today. "
     "Metoprolol succinate 50 mg qd for rate control, HR 68. Labs: Cr 1.1, eGFR 52, Hb 12.9. Allergy: penicillin (rash). "
     "Lives with daughter, independent ADLs. A/P: continue current anticoagulant, INR recheck 4 wk."),
    ("Q01", "n2", "2020-06-03", "pharmacy", "pharmacist",
     "Anticoagulation clinic visit. INR 3.8 (goal 2-3), supratherapeutic. Recently completed ciprofloxacin for UTI. No bleeding. "
     "Plan: hold warfarin x1 dose tonight, then 5 mg daily except 2.5 mg Mon/Thu. Recheck INR in 1 wk."),
    ("Q01", "n3", "2021-09-14", "clinic", "physician",
     "HPI: AF f/u. INR labile over the past year, time in therapeutic range ~45% despite dose adjustments and good adherence. "
     "Discussed DOAC options; pt and daughter agree. Labs: Cr 1.2, eGFR 47. "
     "A/P: stop warfarin, start apixaban 5 mg BID once INR <2. Pharmacy to coordinate."),
    ("Q01", "n4", "2021-10-01", "telephone", "nurse",
     "Pt's daughter called. INR 1.8 on 9/30. Per Dr. plan, warfarin discontinued and Eliquis 5 mg BID started this AM. "
     "Educated on bleeding precautions and missed-dose instructions. Verbalized understanding."),
    ("Q01", "n5", "2023-02-20", "clinic", "physician",
     "PMH (copied from prior): AF on warfarin, HTN, CKD3a, OA. Interval: no falls, no bleeding. Now on apixaban 5 mg BID, adherent. "
     "HR 72, BP 138/76. Labs: Cr 1.3, eGFR 41, Hb 12.2. Kidney function slowly declining; apixaban dose still appropriate (age <80, wt 61 kg). "
     "Continue metoprolol succinate 50 mg qd."),
    ("Q01", "n6", "2025-01-08", "telephone", "nurse",
     "Colonoscopy scheduled 1/10 for surveillance. Per GI, hold Eliquis 48 h prior: last dose evening of 1/7. "
     "Resume 1/11 if no bleeding. Pt's daughter informed, will call with questions."),
    ("Q01", "n7", "2025-04-15", "clinic", "physician",
     "HPI: 80F with AF, HTN, CKD3b. Colonoscopy 1/2025: 2 small tubular adenomas removed. Restarted apixaban 1/11 w/o issue, no bleeding. "
     "HR 70, BP 132/74. Labs: Cr 1.6, eGFR 31, Hb 11.8, K 4.7. "
     "A/P: age >=80 and Cr >=1.5 -> meets 2 dose-reduction criteria; reduce apixaban to 2.5 mg BID. "
     "Continue metoprolol succinate 50 mg qd. RTC 6 mo."),

    # ---------------- Q02: T2DM/CKD, metformin 1000 -> 500 -> stopped, Jardiance held/restarted, glargine
    ("Q02", "n1", "2019-05-10", "clinic", "physician",
     "66M T2DM x 12 yr, HTN, HLD. MEDS: metformin 1000 mg BID, lisinopril 20 mg qd, atorvastatin 40 mg qd. HbA1c 7.9%. "
     "Cr 1.3, eGFR 56, K 4.5. Retinopathy screen UTD (no DR 2/2019). Ex-smoker, quit 2005. A/P: diet counseling, recheck A1c 3 mo."),
    ("Q02", "n2", "2020-08-19", "clinic", "physician",
     "A1c up to 8.4%. Cr 1.6, eGFR 44, UACR 180 mg/g. Add Jardiance 10 mg qd for glycemia + renal protection. "
     "Continue metformin 1000 mg BID for now, recheck renal fx 3 mo. Lisinopril 20 mg qd, atorvastatin 40 mg qd."),
    ("Q02", "n3", "2021-11-02", "clinic", "physician",
     "T2DM/CKD f/u. Cr 1.8, eGFR 38, K 4.9. Metformin reduced to 500 mg BID given eGFR <45. HbA1c 7.6%. "
     "On empagliflozin 10 mg qd, tolerating, no GU infections. BP 134/80."),
    ("Q02", "n4", "2022-07-27", "ED", "physician",
     "CC: dysuria, fever 38.6, L flank pain. UA + nitrite/LE. Dx: acute pyelonephritis. Cr 2.0 (baseline 1.8). "
     "Empagliflozin held during acute illness; metformin held. Ceftriaxone 1 g IV given, d/c home on cefpodoxime x 10 d. Return precautions."),
    ("Q02", "n5", "2022-08-15", "clinic", "physician",
     "Pyelo resolved, urine cx pan-sensitive E. coli. Cr back to 1.8. Restarted empagliflozin 10 mg qd and metformin 500 mg BID. "
     "Reviewed sick-day rules."),
    ("Q02", "n6", "2023-10-05", "clinic", "physician",
     "Progression to CKD4: Cr 2.4, eGFR 28, K 5.0. Metformin stopped (eGFR <30). HbA1c 8.2%. "
     "Start insulin glargine 10 units qhs, titrate by 2 units q3d to FBG 100-150. "
     "Continue empagliflozin 10 mg qd, lisinopril 20 mg qd, atorvastatin 40 mg qd. Nephrology referral placed."),
    ("Q02", "n7", "2024-09-12", "clinic", "physician",
     "T2DM/CKD4 f/u. HbA1c 7.4%. Glargine titrated to 18 units qhs, no hypoglycemia. Cr 2.5, eGFR 27, K 5.3 - low K diet handout. "
     "Jardiance 10 mg qd continued. Lisinopril 20 mg qd, atorvastatin 40 mg qd. Nephrology following, no dialysis plans at this time."),
    ("Q02", "n8", "2025-11-20", "telephone", "nurse",
     "Pt called with BG log: fasting 140-170 x 2 wk. Per Dr., increase Lantus to 20 units qhs. No hypoglycemia. Labs due 12/2025."),

    # ---------------- Q03: HFrEF, lisinopril -> Entresto, spironolactone stopped, Lasix 40 -> 80
    ("Q03", "n1", "2019-02-14", "clinic", "physician",
     "72M ischemic cardiomyopathy, HFrEF EF 30%, CAD s/p CABG x3 2015, HTN. NYHA II. MEDS: lisinopril 10 mg qd, carvedilol 12.5 mg BID, "
     "furosemide 40 mg qd, spironolactone 25 mg qd, aspirin 81 mg qd, atorvastatin 80 mg qd. Wt 80 kg. K 4.6, Cr 1.2."),
    ("Q03", "n2", "2019-11-21", "discharge", "physician",
     "Discharge summary. Admitted 11/17 for ADHF with 6 kg wt gain, orthopnea. IV furosemide diuresis. K 5.9 on admission, Cr 1.5. "
     "Spironolactone stopped due to hyperkalemia. Discharge wt 82 kg, K 4.9. F/u HF clinic 2 wk."),
    ("Q03", "n3", "2020-01-09", "clinic", "physician",
     "Post-hospital f/u. Euvolemic, wt 81 kg. K 4.8, Cr 1.3. Lisinopril stopped; start sacubitril/valsartan 24/26 mg BID after 36 h washout. "
     "Lasix 40 mg qd. Spironolactone remains off given hyperK."),
    ("Q03", "n4", "2021-03-30", "clinic", "physician",
     "Entresto up-titrated to 49/51 mg BID. Echo 2/2021: EF 35%, mod MR. Add dapagliflozin 10 mg qd. K 4.7, Cr 1.4. "
     "Carvedilol 12.5 mg BID (HR 64, BP 104/66, no room to titrate)."),
    ("Q03", "n5", "2022-12-06", "ED", "physician",
     "SOB x 4 d, 3-pillow orthopnea, bilateral LE edema to knees. BNP 1450, Cr 1.7. Home meds (per clinic note 3/2021): "
     "Entresto 49/51 mg BID, carvedilol 12.5 mg BID, furosemide 40 mg qd, dapagliflozin 10 mg qd. Given IV furosemide 80 mg. Admit cardiology."),
    ("Q03", "n6", "2022-12-10", "discharge", "physician",
     "ADHF exacerbation in setting of dietary indiscretion (holiday meals, high Na). Diuresed 5 L. Discharge: furosemide increased to 80 mg qd. "
     "Continue Entresto 49/51 mg BID, carvedilol 12.5 mg BID, Farxiga 10 mg qd. Cr 1.6 at discharge, K 4.4. 2 g Na diet reinforced."),
    ("Q03", "n7", "2024-05-22", "clinic", "physician",
     "HFrEF f/u. NYHA II, wt stable 80 kg. Echo 4/2024: EF 40%. BP 118/70, HR 62. K 4.9, Cr 1.5. "
     "Meds: furosemide 80 mg qd, Entresto 97/103 mg BID (uptitrated today), carvedilol 25 mg BID, dapagliflozin 10 mg qd, "
     "aspirin 81 mg, atorvastatin 80 mg."),

    # ---------------- Q04: statin switches (simva -> atorva -> rosuva), levothyroxine, metformin IR -> ER
    ("Q04", "n1", "2019-07-08", "clinic", "physician",
     "58F HLD, hypothyroidism, prediabetes (A1c 6.1%), obesity BMI 32. On simvastatin 20 mg qhs, levothyroxine 75 mcg qd. "
     "LDL 142 despite adherence. TSH 2.1. Allergy: sulfa (hives). A/P: increase statin intensity - switch simvastatin to atorvastatin 40 mg qd. "
     "Lifestyle counseling."),
    ("Q04", "n2", "2020-02-11", "clinic", "physician",
     "Reports bilateral thigh myalgias x 2 mo since starting atorvastatin, worse with stairs. CK 210 (nl). LDL 96. "
     "A/P: stop atorvastatin; 4 wk washout then trial rosuvastatin 10 mg qd."),
    ("Q04", "n3", "2020-04-02", "telephone", "nurse",
     "Pt reports muscle aches resolved off atorvastatin. Started rosuvastatin 10 mg qd per plan. Will call if muscle sx recur."),
    ("Q04", "n4", "2021-05-17", "clinic", "physician",
     "Tolerating rosuvastatin 10 mg, no muscle sx. LDL 88. TSH 6.8, fatigue - increase levothyroxine to 88 mcg qd. A1c 6.2%."),
    ("Q04", "n5", "2022-09-30", "clinic", "physician",
     "TSH 2.9 on levothyroxine 88 mcg. LDL 74. A1c 6.3%. Continue Crestor 10 mg qd. Mammogram and colon screening up to date."),
    ("Q04", "n6", "2024-03-19", "clinic", "physician",
     "A1c 6.6%, repeat 6.5% -> meets T2DM criteria. Start metformin 500 mg qd with dinner. LDL 69 on Crestor 10 mg. TSH 3.4. BMI 31."),
    ("Q04", "n7", "2025-06-10", "clinic", "physician",
     "GI upset (bloating, loose stools) on metformin IR; changed to metformin ER 500 mg qd, now tolerating. A1c 6.2%. "
     "Synthroid 88 mcg qd, TSH 2.6. Crestor 10 mg qhs. LDL 71. BP 124/78."),

    # ---------------- Q05: AF, warfarin -> Xarelto 20 -> 15, GI bleed hold/resume
    ("Q05", "n1", "2019-10-02", "clinic", "physician",
     "81M AF, HTN, BPH, CKD3a. Anticoagulated with warfarin, INR 2.2 today. Diltiazem ER 180 mg qd, HR 74. Tamsulosin 0.4 mg qhs. "
     "Cr 1.3. Hb 12.8. Former machinist, lives with wife."),
    ("Q05", "n2", "2020-10-20", "clinic", "physician",
     "Pt tired of INR checks, wife has trouble driving him to clinic. Cr 1.3, CrCl 54. "
     "A/P: switch to rivaroxaban 20 mg daily with evening meal; stop warfarin, start Xarelto when INR <3."),
    ("Q05", "n3", "2022-03-15", "clinic", "physician",
     "AF f/u, HR 78 on diltiazem ER 180 mg. Cr 1.8, CrCl 42. A/P: reduce Xarelto to 15 mg daily given CrCl <50. Pt and wife aware."),
    ("Q05", "n4", "2024-02-03", "ED", "physician",
     "Melena x 2 d, lightheaded. HR 104, BP 98/60. Hb 7.8 (baseline ~12.5). On rivaroxaban 15 mg (last dose 2/2 PM). "
     "Xarelto held; hemodynamically responsive to fluids, reversal not given. 2 units PRBC. Pantoprazole 80 mg IV then infusion. GI consulted for EGD."),
    ("Q05", "n5", "2024-02-07", "discharge", "physician",
     "Discharge summary. PMH (copied from 10/2020 note): AF on rivaroxaban 20 mg daily, HTN, BPH, CKD3a. "
     "Hospital course: upper GI bleed from duodenal ulcer, clipped on EGD 2/4. H. pylori positive - triple therapy x 14 d. "
     "Hb 9.4 at discharge. Rivaroxaban on hold; GI OK to resume in 2 wk. Pantoprazole 40 mg BID x 8 wk."),
    ("Q05", "n6", "2024-02-22", "telephone", "nurse",
     "Per cardiology and GI, resume Xarelto 15 mg daily today. No further melena, pt feels well. Wife will pick up refill."),
    ("Q05", "n7", "2025-08-14", "clinic", "physician",
     "AF rate controlled, HR 70. On rivaroxaban 15 mg qd with dinner, no bleeding since 2/2024. Hb 12.1. Cr 1.9, CrCl 38. "
     "PPI: pantoprazole reduced to 40 mg qd. Tamsulosin 0.4 mg qhs. Diltiazem ER 180 mg qd."),

    # ---------------- Q06: asthma Advair -> Symbicort, montelukast stopped (side effect), sertraline -> escitalopram
    ("Q06", "n1", "2019-01-22", "clinic", "physician",
     "45F moderate persistent asthma, MDD, migraine w/o aura. MEDS: Advair 250/50 1 puff BID, albuterol PRN, sertraline 100 mg qd, "
     "sumatriptan 50 mg PRN. PHQ-9 8. FEV1 78% pred. Never smoker. Works as a teacher."),
    ("Q06", "n2", "2020-05-05", "clinic", "physician",
     "Asthma not well controlled: night sx 2x/wk, albuterol 4x/wk. Good inhaler technique on review. Add montelukast 10 mg qhs. PHQ-9 6."),
    ("Q06", "n3", "2020-09-16", "telephone", "nurse",
     "Pt reports vivid nightmares and irritability since starting montelukast ~3 mo ago. Per Dr., stop montelukast, monitor asthma sx; f/u in clinic."),
    ("Q06", "n4", "2021-04-27", "clinic", "physician",
     "Insurance no longer covers Advair; switched to Symbicort 160/4.5 2 puffs BID. Reports low libido on sertraline, wants a change. "
     "Plan: cross-taper sertraline to escitalopram 10 mg qd over 2 wk. PHQ-9 7."),
    ("Q06", "n5", "2022-02-08", "ED", "physician",
     "Asthma exacerbation after URI, wheezing, peak flow 55% of personal best. Albuterol/ipratropium nebs x3, prednisone 40 mg. "
     "Improved to 80%. D/c home on prednisone 40 mg x 5 d, continue Symbicort."),
    ("Q06", "n6", "2023-06-13", "clinic", "physician",
     "Persistent low mood after job loss, PHQ-9 13. Escitalopram increased to 20 mg qd; referred to therapy. "
     "Asthma OK on Symbicort 160/4.5 2 puffs BID. FEV1 82% pred."),
    ("Q06", "n7", "2025-03-04", "clinic", "physician",
     "Mood improved on Lexapro 20 mg, PHQ-9 4, continues CBT. Asthma well controlled, no ED visits since 2022; "
     "Symbicort 160/4.5 2 puffs BID, albuterol rarely. FEV1 85% pred. Migraines 1-2/mo, sumatriptan PRN effective."),

    # ---------------- Q07: COPD/HTN/gout, HCTZ stopped, lisinopril -> losartan (cough), tiotropium -> Trelegy
    ("Q07", "n1", "2019-04-16", "clinic", "physician",
     "63M COPD GOLD 2, HTN, gout. Current smoker, 40 pk-yr. MEDS: tiotropium 18 mcg inh qd, albuterol PRN, lisinopril 20 mg qd, HCTZ 25 mg qd. "
     "BP 148/88. Uric acid 8.9. Counseled on cessation, not ready."),
    ("Q07", "n2", "2019-12-03", "clinic", "physician",
     "2nd gout flare this yr (L 1st MTP), treated w/ prednisone burst. HCTZ stopped (raises uric acid). Start amlodipine 5 mg qd. "
     "Start allopurinol 100 mg qd w/ colchicine 0.6 mg qd prophylaxis x 6 mo."),
    ("Q07", "n3", "2020-07-21", "clinic", "physician",
     "Dry cough x 3 mo, no fever, CXR clear. Likely ACE-inhibitor cough. Lisinopril d/c'd; start losartan 50 mg qd. "
     "Uric acid 6.8; allopurinol increased to 200 mg qd."),
    ("Q07", "n4", "2021-08-10", "clinic", "physician",
     "Cough resolved off lisinopril. Quit smoking 3/2021 with varenicline! BP 132/80 on losartan 50 mg and amlodipine 5 mg. "
     "Uric acid 5.9, no flares. Colchicine stopped (6+ mo flare-free)."),
    ("Q07", "n5", "2023-01-17", "ED", "physician",
     "Increased dyspnea, purulent sputum x 3 d. SpO2 86% RA, diffuse wheeze. Dx AECOPD. Nebs, methylprednisolone IV, azithromycin. Admitted to medicine."),
    ("Q07", "n6", "2023-01-21", "discharge", "physician",
     "AECOPD, improved. Discharged on prednisone taper; Trelegy 100/62.5/25 1 inh qd added, replacing tiotropium. "
     "SpO2 93% RA at discharge, home O2 not needed. Pulm rehab referral."),
    ("Q07", "n7", "2024-11-05", "clinic", "physician",
     "COPD stable on Trelegy 1 inh qd, no exacerbations since 1/2023. BP 128/78. Meds: losartan 50 mg qd, amlodipine 5 mg qd, "
     "allopurinol 200 mg qd. Uric acid 5.4. Cr 1.0, K 4.3. Remains tobacco-free."),

    # ---------------- Q08: breast CA, tamoxifen -> letrozole -> anastrozole (arthralgia), osteoporosis
    ("Q08", "n1", "2019-02-26", "clinic", "physician",
     "54F ER+/PR+ HER2- L breast CA stage IA, s/p lumpectomy + XRT 2018. On tamoxifen 20 mg qd since 8/2018. HTN on amlodipine 10 mg qd. "
     "No evidence of recurrence. Mammogram 1/2019 BI-RADS 2. Perimenopausal, irregular menses."),
    ("Q08", "n2", "2021-03-09", "clinic", "physician",
     "Now postmenopausal (amenorrhea 14 mo, FSH 68, estradiol <20). Switch tamoxifen to letrozole 2.5 mg qd. Baseline DEXA ordered. BP 130/80."),
    ("Q08", "n3", "2021-05-04", "clinic", "physician",
     "DEXA 4/2021: L-spine T-score -1.8, femoral neck -1.4 (osteopenia). Vitamin D 22. Start vitamin D3 2000 IU qd + calcium 1200 mg/d diet+supp. "
     "Tolerating letrozole so far."),
    ("Q08", "n4", "2022-01-18", "telephone", "nurse",
     "Pt reports severe joint pain in hands and knees on letrozole, waking her at night. Per oncology, stop letrozole; "
     "2 wk break then start anastrozole 1 mg qd."),
    ("Q08", "n5", "2023-04-25", "clinic", "physician",
     "Arthralgias mild on anastrozole 1 mg qd, manageable. Repeat DEXA: L-spine T-score -2.6 (osteoporosis). "
     "Start alendronate 70 mg weekly; dental exam done. Vit D 34."),
    ("Q08", "n6", "2025-05-20", "clinic", "physician",
     "~7 yr from dx, NED. Mammogram 4/2025 BI-RADS 1. Continue Arimidex 1 mg qd through 2028 (10 yr total endocrine tx). "
     "Fosamax 70 mg weekly, no jaw sx. Vit D 38. BP 126/74 on amlodipine 10 mg."),

    # ---------------- Q09: T2DM/CKD, metformin reduced then stopped, losartan held for AKI, Jardiance
    ("Q09", "n1", "2019-06-11", "clinic", "physician",
     "70F T2DM, HTN, CKD3a, OA knees. MEDS: metformin 1000 mg BID, sitagliptin 100 mg qd, losartan 100 mg qd, atorvastatin 20 mg qhs. "
     "Cr 1.1, eGFR 50. HbA1c 7.2%. BP 136/78. Uses acetaminophen for knees, avoid NSAIDs."),
    ("Q09", "n2", "2020-12-01", "clinic", "physician",
     "Cr 1.3, eGFR 41. A/P: metformin reduced to 500 mg BID; sitagliptin reduced to 50 mg qd for eGFR 30-45. A1c 7.5%. K 4.6."),
    ("Q09", "n3", "2022-04-19", "ED", "physician",
     "N/V/diarrhea x 3 d, orthostatic. Cr 2.6 (baseline 1.3-1.4), AKI. K 5.4. IV fluids. Losartan and metformin held. Admit to obs."),
    ("Q09", "n4", "2022-04-21", "discharge", "physician",
     "AKI, prerenal from viral gastroenteritis, improved with IVF. Cr 1.9 at d/c. Hold losartan and metformin until PCP labs in 1-2 wk."),
    ("Q09", "n5", "2022-05-03", "clinic", "physician",
     "Post-AKI f/u. Cr 1.4, eGFR 38, back to baseline. BP 146/82 off losartan. Restart losartan 100 mg qd and metformin 500 mg BID."),
    ("Q09", "n6", "2023-11-14", "clinic", "physician",
     "PMH: T2DM, HTN, CKD3a (per problem list), OA. Cr 1.5, eGFR 35 - CKD3b now. Hb 10.6, ferritin 45: start ferrous sulfate 325 mg every other day. "
     "A1c 7.0%. Januvia 50 mg qd, metformin 500 mg BID, losartan 100 mg qd."),
    ("Q09", "n7", "2025-02-25", "clinic", "physician",
     "Cr 1.7, eGFR 31, K 5.1. Given eGFR approaching 30 and pt preference, metformin stopped; start empagliflozin 10 mg qd. A1c 7.3%. "
     "Hb 11.2. Continue Januvia 50 mg qd, losartan 100 mg qd. Low K diet."),
    ("Q09", "n8", "2026-01-13", "telephone", "nurse",
     "Lab callback: Cr 1.6, eGFR 33, K 4.8. Pt tolerating Jardiance, mild increase in urination, no UTI sx. No med changes per Dr."),

    # ---------------- Q10: epilepsy, Keppra -> lamotrigine (irritability), breakthrough seizure, XR
    ("Q10", "n1", "2019-09-03", "clinic", "physician",
     "35M focal epilepsy w/ impaired awareness, dx 2017. Levetiracetam 1000 mg BID. Last sz 6/2019 (missed doses). "
     "MRI brain 2017: L mesial temporal sclerosis. NKDA. Works in warehouse; not driving."),
    ("Q10", "n2", "2020-03-17", "clinic", "physician",
     "Wife reports irritability and angry outbursts on Keppra, worse over past 6 mo. Sz-free since 6/2019. "
     "A/P: cross-taper to lamotrigine: start 25 mg qd, titrate per schedule over 8 wk, then taper Keppra."),
    ("Q10", "n3", "2020-07-28", "telephone", "nurse",
     "Titration complete, now on lamotrigine 100 mg BID. Keppra fully tapered off 7/20. Mood much better per wife. No rash."),
    ("Q10", "n4", "2021-10-12", "ED", "physician",
     "Breakthrough GTC seizure at work, witnessed, ~2 min, after missed doses x 2 d and sleep deprivation. Lamotrigine level 2.1 (low). "
     "Lamotrigine dose given in ED, back to baseline. No driving x 6 mo per state law. Neuro f/u."),
    ("Q10", "n5", "2021-11-09", "clinic", "physician",
     "Lamotrigine increased to 150 mg BID. Adherence counseling, pillbox + phone alarms. Level 4.8."),
    ("Q10", "n6", "2023-08-22", "clinic", "physician",
     "Sz-free since 10/2021. Lamotrigine 150 mg BID, level 5.6. Cleared to drive. No rash, mood stable."),
    ("Q10", "n7", "2025-10-07", "clinic", "physician",
     "Sz-free ~4 yrs. Lamictal XR 300 mg qd (converted from IR BID in 2024 for adherence). Level 6.0. "
     "Discussed epilepsy surgery eval; pt declines for now. Folic acid 1 mg qd."),

    # ---------------- Q11: mechanical MVR, warfarin throughout (never changed), metoprolol change, furosemide up
    ("Q11", "n1", "2019-08-20", "clinic", "physician",
     "67F s/p mechanical MVR (On-X) 2012 for rheumatic MS, AF, HTN. Warfarin 6 mg daily, INR goal 2.5-3.5; INR 3.0 today. "
     "Metoprolol tartrate 25 mg BID. Furosemide 20 mg qd. Cr 0.8."),
    ("Q11", "n2", "2020-11-10", "pharmacy", "pharmacist",
     "Anticoag clinic. INR 2.1 - subtherapeutic for mechanical valve; missed 2 doses. Enoxaparin bridge 1 mg/kg SC BID until INR >2.5. "
     "Warfarin 9 mg x1 tonight, then resume 6 mg daily. Recheck 3 d."),
    ("Q11", "n3", "2022-02-15", "clinic", "physician",
     "Worsening bilateral LE edema x 1 mo. Furosemide increased to 40 mg qd. Echo 1/2022: well-seated mechanical mitral prosthesis, EF 55%. "
     "INR 2.8. Cr 0.9."),
    ("Q11", "n4", "2023-07-11", "telephone", "nurse",
     "Dental extraction planned 7/14. Per cardiology: do NOT stop warfarin; dentist to use local hemostatic measures (TXA mouthwash). "
     "INR 2.9 on 7/10 - OK to proceed."),
    ("Q11", "n5", "2024-09-03", "clinic", "physician",
     "Palpitations x 1 wk, AF w/ RVR HR 120s on ECG. Metoprolol changed to metoprolol succinate 100 mg qd. INR 3.2. Cr 1.0. "
     "Warfarin 6 mg daily continued; pt asked about switching to Eliquis - not appropriate with mechanical valve."),
    ("Q11", "n6", "2025-12-02", "pharmacy", "pharmacist",
     "Anticoag visit. INR 2.7, in range (goal 2.5-3.5). Warfarin 6 mg daily except 4.5 mg Fri. No bleeding or bruising. Next INR 4 wk."),

    # ---------------- Q12: PsA, MTX stopped (LFTs), Humira held/resumed, -> Cosentyx
    ("Q12", "n1", "2019-03-05", "clinic", "physician",
     "50M psoriatic arthritis + plaque psoriasis. Methotrexate 15 mg weekly + folic acid 1 mg qd. ALT 38, AST 31. BMI 33. "
     "Quantiferon neg 1/2019. EtOH 1-2 beers/wk."),
    ("Q12", "n2", "2020-01-14", "clinic", "physician",
     "ALT 112, AST 89 (~3x ULN) on MTX. Methotrexate held. Advised alcohol abstinence. Recheck LFTs in 4 wk; RUQ US ordered."),
    ("Q12", "n3", "2020-02-25", "clinic", "physician",
     "ALT 64 off MTX. RUQ US: hepatic steatosis. A/P: methotrexate discontinued permanently given fatty liver + transaminitis. "
     "Start adalimumab 40 mg SC q2wk."),
    ("Q12", "n4", "2021-06-08", "clinic", "physician",
     "PsA well controlled on Humira; no synovitis, psoriasis BSA <1%. ALT 35. Quantiferon neg 5/2021."),
    ("Q12", "n5", "2022-10-18", "telephone", "nurse",
     "Pt reports fever 38.9 and productive cough; seen at urgent care, CXR RLL pneumonia, COVID neg, on amoxicillin-clavulanate. "
     "Per rheum: hold Humira until afebrile and abx complete."),
    ("Q12", "n6", "2022-11-01", "clinic", "physician",
     "Pneumonia resolved. Resume adalimumab 40 mg q2wk. Flu and pneumococcal vaccines given today."),
    ("Q12", "n7", "2024-07-23", "clinic", "physician",
     "Secondary loss of response to adalimumab: 5 swollen joints, dactylitis L 2nd toe. Switched from adalimumab to secukinumab 150 mg SC "
     "weekly x5 then monthly. ALT 29. Quantiferon neg 6/2024."),
    ("Q12", "n8", "2025-09-16", "clinic", "physician",
     "PsA improved on Cosentyx 150 mg monthly, 1 swollen joint (R wrist). Psoriasis clear. ALT 31. BMI 31."),

    # ---------------- Q13: NSTEMI/PCI, ticagrelor -> clopidogrel (dyspnea), aspirin stopped, Plavix held for hernia repair
    ("Q13", "n1", "2019-11-12", "discharge", "physician",
     "68M NSTEMI, DES x1 to prox LAD 11/10/2019. EF 50%. LDL 131. Discharge meds: aspirin 81 mg qd, ticagrelor 90 mg BID, "
     "atorvastatin 80 mg qd, metoprolol succinate 25 mg qd. Cardiac rehab referral."),
    ("Q13", "n2", "2019-12-17", "clinic", "physician",
     "Post-MI f/u. Exertional dyspnea since starting Brilinta, no ischemia on stress echo, lungs clear. "
     "Ticagrelor stopped d/t dyspnea; load clopidogrel 600 mg then 75 mg qd. Continue aspirin 81 mg."),
    ("Q13", "n3", "2020-11-24", "clinic", "physician",
     "1 yr post-PCI, no angina. DAPT complete: aspirin stopped, continue clopidogrel 75 mg qd monotherapy. "
     "LDL 82 on atorvastatin 80 mg: add ezetimibe 10 mg qd."),
    ("Q13", "n4", "2022-05-10", "clinic", "physician",
     "CAD f/u, no angina. LDL 58. Plavix 75 mg qd, ezetimibe 10 mg, atorvastatin 80 mg. Symptomatic R inguinal hernia - general surgery referral."),
    ("Q13", "n5", "2022-06-14", "telephone", "nurse",
     "Hernia repair scheduled 6/21. Per cardiology OK to hold clopidogrel 5 days prior: last dose 6/15. Pt verbalized understanding."),
    ("Q13", "n6", "2022-07-05", "clinic", "physician",
     "S/p lap R inguinal hernia repair 6/21, uncomplicated. Clopidogrel resumed 6/22. No angina, incisions healing."),
    ("Q13", "n7", "2024-10-29", "clinic", "physician",
     "CAD stable, no angina, walking 2 mi/day. LDL 49. Echo EF 55%. Meds: clopidogrel 75 mg qd, Lipitor 80 mg qd, Zetia 10 mg qd, "
     "metoprolol succinate 25 mg qd. Cr 1.1, BP 122/70."),

    # ---------------- Q14: T1DM, MDI -> pump, DKA, lisinopril stopped for pregnancy then restarted
    ("Q14", "n1", "2019-04-09", "clinic", "physician",
     "29F T1DM since age 11, celiac disease on strict GF diet. MDI: glargine 22 units qhs + lispro ICR 1:10, CF 1:40. HbA1c 8.6%. "
     "UACR 45 (microalbuminuria) on 2 checks: start lisinopril 5 mg qd. BP 124/78."),
    ("Q14", "n2", "2020-08-25", "ED", "physician",
     "DKA: glucose 486, pH 7.18, AG 24, after skipping basal insulin during 2 d of vomiting (gastroenteritis). "
     "Insulin infusion + IVF per protocol. Admitted to ICU."),
    ("Q14", "n3", "2020-08-28", "progress", "physician",
     "Progress note HD#4. DKA resolved, transitioned to SC insulin 8/26. Sick-day rules and ketone testing reviewed. "
     "Resume glargine 22 units qhs, lispro per ICR. Plan d/c home today, endo f/u 2 wk."),
    ("Q14", "n4", "2021-09-14", "clinic", "physician",
     "Started Tandem t:slim X2 pump with Dexcom G6 (Control-IQ) 8/2021; glargine discontinued. HbA1c 7.4%. TIR 68%. "
     "Lisinopril 5 mg qd continued."),
    ("Q14", "n5", "2023-03-07", "clinic", "physician",
     "Planning pregnancy later this year. Lisinopril stopped (teratogenic); start prenatal vitamin w/ folic acid. HbA1c 6.6%. UACR 28. "
     "Preconception counseling done."),
    ("Q14", "n6", "2024-06-18", "clinic", "physician",
     "Delivered healthy boy 4/2024, SVD at 38 wk. Breastfeeding. HbA1c 6.9%. TIR 74% on pump. BP 118/72, off lisinopril."),
    ("Q14", "n7", "2025-07-29", "clinic", "physician",
     "HbA1c 7.1%. Pump + Dexcom G7, TIR 71%. UACR 52, rising: restarted lisinopril 5 mg qd (done breastfeeding, has IUD). "
     "tTG IgA neg on GF diet."),
]

# Answerable: (patient, kind, style, question, note_id, facts, forbidden)
# Uncovered:  (patient, "uncovered", style, question, missing)
Q = [
    # Q01
    ("Q01", "current", "terse", "current anticoagulant?", "n7", [["apixaban"]], ["warfarin"]),
    ("Q01", "current", "terse", "eliquis dose now", "n7", [["2.5 mg BID"]], ["apixaban 5 mg", "Eliquis 5 mg"]),
    ("Q01", "latest_value", "shorthand", "last Cr?", "n7", [["Cr 1.6"]], ["Cr 1.3", "Cr 1.2", "Cr 1.1"]),
    ("Q01", "event", "plain", "when was her anticoagulant last held", "n6", [["hold Eliquis 48 h"], ["Colonoscopy"]], []),
    ("Q01", "reason", "plain", "why was she taken off warfarin", "n3", [["INR labile"], ["therapeutic range"]], []),
    ("Q01", "reason", "shorthand", "why was apixiban dose reduced", "n7", [["dose-reduction criteria"], ["Cr 1.6"]], []),
    ("Q01", "note_year", "shorthand", "INR in 2020?", "n2", [["INR 3.8"]], ["INR 2.4", "INR 1.8"]),
    ("Q01", "note_year", "plain", "what did the 2023 note say about her kidneys", "n5", [["Cr 1.3"], ["eGFR 41"]], ["Cr 1.6", "eGFR 31"]),
    ("Q01", "uncovered", "plain", "is she on a statin", "statin"),
    # Q02
    ("Q02", "current", "shorthand", "pt still on metfromin?", "n6", [["Metformin stopped"]], ["500 mg BID", "1000 mg BID"]),
    ("Q02", "current", "shorthand", "is he on an SGLT2i", "n7", [["Jardiance"]], []),
    ("Q02", "current", "terse", "lantus dose?", "n8", [["20 units"]], ["18 units", "10 units"]),
    ("Q02", "latest_value", "terse", "most recent A1c", "n7", [["7.4%"]], ["8.2%", "7.6%", "8.4%", "7.9%"]),
    ("Q02", "event", "plain", "when was his Jardiance held", "n4", [["Empagliflozin held"], ["pyelonephritis"]], []),
    ("Q02", "reason", "lay", "why did they cut back his metformin dose", "n3", [["eGFR <45"], ["500 mg BID"]], []),
    ("Q02", "note_year", "shorthand", "2021 renal fx", "n3", [["Cr 1.8"], ["eGFR 38"]], ["eGFR 44", "eGFR 28"]),
    ("Q02", "note_year", "plain", "what was the A1c at the 2023 visit", "n6", [["8.2%"]], ["7.4%", "7.6%"]),
    ("Q02", "uncovered", "lay", "is he on any blood thinner", "anticoagulant"),
    # Q03
    ("Q03", "current", "terse", "current diuretic dose?", "n7", [["furosemide 80 mg"]], ["furosemide 40 mg", "Lasix 40 mg"]),
    ("Q03", "current", "plain", "is he on an ACE inhibitor", "n7", [["Entresto"]], ["lisinopril"]),
    ("Q03", "current", "terse", "entreso dose now", "n7", [["97/103"]], ["49/51", "24/26"]),
    ("Q03", "latest_value", "terse", "last EF", "n7", [["EF 40%"]], ["EF 35%", "EF 30%"]),
    ("Q03", "event", "shorthand", "when was his last HF admission", "n6", [["ADHF exacerbation"], ["Diuresed 5 L"]], []),
    ("Q03", "reason", "plain", "why was the aldosterone antagonist stopped", "n2", [["hyperkalemia"], ["K 5.9"]], []),
    ("Q03", "note_year", "plain", "what did the 2021 echo show", "n4", [["EF 35%"]], ["EF 40%", "EF 30%"]),
    ("Q03", "uncovered", "terse", "does he have an ICD?", "ICD"),
    # Q04
    ("Q04", "current", "plain", "which statin is she taking now", "n7", [["Crestor"]], ["atorvastatin", "simvastatin"]),
    ("Q04", "current", "terse", "Synthroid dose", "n7", [["88 mcg"]], ["75 mcg"]),
    ("Q04", "latest_value", "terse", "LDL most recent", "n7", [["LDL 71"]], ["LDL 69", "LDL 74", "LDL 88"]),
    ("Q04", "event", "plain", "when did her metformin get switched to the ER form", "n7", [["changed to metformin ER"]], []),
    ("Q04", "reason", "plain", "why was her statin switched off atorvastatin", "n2", [["myalgias"]], []),
    ("Q04", "note_year", "shorthand", "LDL in 2019?", "n1", [["LDL 142"]], ["LDL 96", "LDL 71"]),
    ("Q04", "uncovered", "plain", "what anticoagulant is she on", "anticoagulant"),
    # Q05
    ("Q05", "current", "lay", "what blood thinner is he on now", "n7", [["rivaroxaban"]], ["warfarin"]),
    ("Q05", "current", "terse", "xarleto dose", "n7", [["15 mg"]], ["20 mg"]),
    ("Q05", "latest_value", "terse", "most recent Hb", "n7", [["Hb 12.1"]], ["Hb 9.4", "Hb 7.8", "Hb 12.8"]),
    ("Q05", "latest_value", "shorthand", "last creatnine?", "n7", [["Cr 1.9"]], ["Cr 1.8", "Cr 1.3"]),
    ("Q05", "event", "lay", "when did they hold his blood thinner", "n4", [["Xarelto held"], ["Melena"]], []),
    ("Q05", "event", "plain", "when was the xarelto dose lowered", "n3", [["reduce Xarelto to 15 mg"]], []),
    ("Q05", "note_year", "plain", "what did the 2024 discharge summary say about H pylori", "n5",
     [["H. pylori positive"], ["triple therapy"]], []),
    ("Q05", "uncovered", "plain", "when was his last colonoscopy", "colonoscopy"),
    # Q06
    ("Q06", "current", "plain", "what steroid inhaler is she on now", "n7", [["Symbicort"]], ["Advair"]),
    ("Q06", "current", "terse", "current antidepressant?", "n7", [["Lexapro"]], ["sertraline"]),
    ("Q06", "current", "terse", "lexapro dose", "n7", [["Lexapro 20 mg"]], ["escitalopram 10 mg"]),
    ("Q06", "latest_value", "shorthand", "latest FEV1", "n7", [["FEV1 85% pred"]], ["FEV1 82% pred", "FEV1 78% pred"]),
    ("Q06", "event", "plain", "when was her SSRI changed", "n4", [["cross-taper sertraline to escitalopram"]], []),
    ("Q06", "event", "shorthand", "last ED visit for asthma?", "n5", [["Asthma exacerbation"], ["prednisone 40 mg"]], []),
    ("Q06", "reason", "lay", "why did she stop singulair", "n3", [["nightmares"], ["irritability"]], []),
    ("Q06", "note_year", "shorthand", "PHQ9 2023", "n6", [["PHQ-9 13"]], ["PHQ-9 4", "PHQ-9 7", "PHQ-9 8", "PHQ-9 6"]),
    ("Q06", "uncovered", "plain", "is she on dupilumab", "dupilumab"),
    ("Q06", "uncovered", "terse", "her last A1c", "A1c"),
    # Q07
    ("Q07", "current", "plain", "what antihypertensives is he on", "n7", [["losartan 50 mg"], ["amlodipine 5 mg"]], ["lisinopril", "HCTZ"]),
    ("Q07", "current", "terse", "inhalers now?", "n7", [["Trelegy"]], ["tiotropium"]),
    ("Q07", "latest_value", "shorthand", "uric acid latest", "n7", [["Uric acid 5.4"]], ["Uric acid 5.9", "Uric acid 6.8", "Uric acid 8.9"]),
    ("Q07", "event", "lay", "when did he quit smoking", "n4", [["Quit smoking 3/2021"]], []),
    ("Q07", "event", "plain", "when was the thiazide stopped", "n2", [["HCTZ stopped"]], []),
    ("Q07", "reason", "plain", "why was his ACE inhibitor stopped", "n3", [["ACE-inhibitor cough", "Dry cough"]], []),
    ("Q07", "note_year", "shorthand", "uric acid in 2020", "n3", [["Uric acid 6.8"]], ["Uric acid 5.4", "Uric acid 5.9", "Uric acid 8.9"]),
    ("Q07", "uncovered", "terse", "last FEV1?", "FEV1"),
    # Q08
    ("Q08", "current", "plain", "what hormone therapy is she on now for the breast ca", "n6", [["Arimidex"]], ["letrozole", "tamoxifen"]),
    ("Q08", "current", "plain", "is she on a bisphosphonate", "n6", [["Fosamax"]], []),
    ("Q08", "latest_value", "shorthand", "last vit D", "n6", [["Vit D 38"]], ["Vit D 34", "Vitamin D 22"]),
    ("Q08", "event", "lay", "when did she come off tamoxifen", "n2", [["letrozole 2.5 mg"], ["postmenopausal"]], []),
    ("Q08", "reason", "plain", "why did she stop letrozole", "n4", [["joint pain"]], []),
    ("Q08", "note_year", "shorthand", "2021 DEXA result", "n3", [["T-score -1.8"], ["osteopenia"]], ["-2.6"]),
    ("Q08", "uncovered", "lay", "did she get chemo", "chemotherapy"),
    ("Q08", "uncovered", "terse", "BRCA status?", "BRCA"),
    # Q09
    ("Q09", "current", "lay", "is she still taking metformin", "n7", [["metformin stopped"]], ["metformin 500 mg BID"]),
    ("Q09", "current", "terse", "januvia dose", "n7", [["Januvia 50 mg"]], ["sitagliptin 100 mg"]),
    ("Q09", "latest_value", "terse", "most recent Cr", "n8", [["Cr 1.6"]], ["Cr 1.7", "Cr 1.5", "Cr 1.4", "Cr 1.9"]),
    ("Q09", "event", "plain", "when was her ARB held", "n3", [["Losartan and metformin held"], ["AKI"]], []),
    ("Q09", "note_year", "shorthand", "eGFR 2020", "n2", [["eGFR 41"]], ["eGFR 50", "eGFR 38", "eGFR 33"]),
    ("Q09", "note_year", "plain", "what was her K in 2025", "n7", [["K 5.1"]], ["K 4.8", "K 5.4"]),
    ("Q09", "uncovered", "terse", "insulin dose?", "insulin"),
    # Q10
    ("Q10", "current", "plain", "current antiseizure med", "n7", [["Lamictal XR"]], ["levetiracetam", "Keppra"]),
    ("Q10", "current", "terse", "lamotrigene dose", "n7", [["300 mg qd"]], ["150 mg BID", "100 mg BID"]),
    ("Q10", "latest_value", "plain", "last lamotrigine level", "n7", [["Level 6.0"]], ["level 5.6", "level 4.8", "level 2.1"]),
    ("Q10", "event", "lay", "when was his last seizure", "n4", [["Breakthrough GTC seizure"]], []),
    ("Q10", "reason", "plain", "why was Keppra stopped", "n2", [["irritability"], ["angry outbursts"]], []),
    ("Q10", "note_year", "plain", "what did the 2019 note say about his MRI", "n1", [["mesial temporal sclerosis"]], []),
    ("Q10", "uncovered", "terse", "EEG findings?", "EEG"),
    ("Q10", "uncovered", "plain", "is he on warfarin", "warfarin"),
    # Q11
    ("Q11", "current", "shorthand", "pt still on warfarin?", "n6", [["Warfarin 6 mg"]], ["Eliquis"]),
    ("Q11", "current", "terse", "beta blocker dose now", "n5", [["succinate 100 mg"]], ["tartrate 25 mg"]),
    ("Q11", "current", "lay", "what dose of water pill is she on", "n3", [["Furosemide increased to 40 mg"]], ["Furosemide 20 mg"]),
    ("Q11", "latest_value", "terse", "INR most recent", "n6", [["INR 2.7"]], ["INR 3.2", "INR 2.9", "INR 2.8"]),
    ("Q11", "event", "lay", "was her blood thinner stopped for the dental extraction", "n4", [["do NOT stop warfarin"]], []),
    ("Q11", "note_year", "shorthand", "2020 anticoag clinic note - INR and plan", "n2", [["INR 2.1"], ["Enoxaparin bridge"]], ["INR 2.7"]),
    ("Q11", "uncovered", "terse", "last A1c", "A1c"),
    # Q12
    ("Q12", "current", "terse", "current biologic?", "n8", [["Cosentyx"]], ["adalimumab", "Humira"]),
    ("Q12", "latest_value", "terse", "ALT most recent", "n8", [["ALT 31"]], ["ALT 29", "ALT 35", "ALT 64", "ALT 112", "ALT 38"]),
    ("Q12", "event", "plain", "when was his TNF inhibitor held", "n5", [["hold Humira"], ["pneumonia"]], []),
    ("Q12", "event", "plain", "when did he switch off Humira", "n7", [["Switched from adalimumab to secukinumab"]], []),
    ("Q12", "reason", "shorthand", "why was his DMARD (mtx) stopped", "n3", [["hepatic steatosis"], ["transaminitis"]], []),
    ("Q12", "note_year", "shorthand", "2021 quantiferon", "n4", [["Quantiferon neg 5/2021"]], ["Quantiferon neg 6/2024", "Quantiferon neg 1/2019"]),
    ("Q12", "uncovered", "plain", "is he on a statin", "statin"),
    ("Q12", "uncovered", "shorthand", "hep B serologies?", "hepatitis B"),
    # Q13
    ("Q13", "current", "plain", "what antiplatelet is he on", "n7", [["clopidogrel"]], ["ticagrelor", "aspirin"]),
    ("Q13", "latest_value", "terse", "LDL latest", "n7", [["LDL 49"]], ["LDL 58", "LDL 82", "LDL 131"]),
    ("Q13", "event", "plain", "when was his antiplatelet held for surgery", "n5", [["last dose 6/15"], ["Hernia repair"]], []),
    ("Q13", "reason", "plain", "why was Brilinta stopped", "n2", [["dyspnea"]], []),
    ("Q13", "note_year", "plain", "what did the 2020 note say about his antiplatelets", "n3", [["aspirin stopped"], ["clopidogrel 75 mg"]], []),
    ("Q13", "uncovered", "plain", "when was his CABG", "CABG"),
    # Q14
    ("Q14", "current", "plain", "is she on an ACE inhibitor now", "n7", [["lisinopril 5 mg"]], ["off lisinopril", "Lisinopril stopped"]),
    ("Q14", "current", "shorthand", "still on lantus?", "n4", [["glargine discontinued"], ["pump"]], ["glargine 22 units"]),
    ("Q14", "latest_value", "terse", "last A1c", "n7", [["7.1%"]], ["6.9%", "6.6%", "7.4%", "8.6%"]),
    ("Q14", "event", "lay", "when was she in the ICU for DKA", "n2", [["DKA"], ["pH 7.18"]], []),
    ("Q14", "reason", "plain", "why was her ACE inhibitor stopped", "n5", [["teratogenic"], ["pregnancy"]], []),
    ("Q14", "note_year", "shorthand", "2023 UACR", "n5", [["UACR 28"]], ["UACR 52", "UACR 45"]),
    ("Q14", "uncovered", "plain", "retinopathy screening?", "retinopathy"),
]


def main():
    with open(os.path.join(HERE, "notes.jsonl"), "w") as f:
        for pid, nid, date, ntype, role, text in NOTES:
            f.write(json.dumps({"patient_id": pid, "note_id": nid, "date": date, "note_type": ntype,
                                "author_role": role, "text": text}) + "\n")
    with open(os.path.join(HERE, "questions.jsonl"), "w") as f:
        for i, q in enumerate(Q, 1):
            qid = "nq%03d" % i
            if q[1] == "uncovered":
                pid, kind, style, text, missing = q
                rec = {"id": qid, "question": text, "kind": kind, "patient_id": pid,
                       "missing": missing, "facts": [], "forbidden": [], "style": style}
            else:
                pid, kind, style, text, nid, facts, forbidden = q
                rec = {"id": qid, "question": text, "kind": kind, "patient_id": pid,
                       "doc_id": "note:%s:%s" % (pid, nid), "facts": facts, "forbidden": forbidden,
                       "style": style}
            f.write(json.dumps(rec) + "\n")
    print("notes:", len(NOTES), "questions:", len(Q))


if __name__ == "__main__":
    main()
