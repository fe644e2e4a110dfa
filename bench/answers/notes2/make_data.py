"""Builds notes.jsonl and questions.jsonl (synthetic data, no real people)."""
import json, os
D = os.path.dirname(os.path.abspath(__file__))

N = {}  # patient -> list of (note_id, date, type, role, text)
N["R01"] = [
 ("n1","2018-03-14","clinic","physician","Seen in clinic. 72M. HFrEF. LVEF 35%. AF, rate ok. Bisoprolol 2.5mg OD. Ramipril 5mg OD. Furosemide 40mg OD. Apixaban 5mg BD. Cr 128. K 4.6. Plan: r/v 6/12."),
 ("n2","2018-09-02","ED","physician","SOB 3/7. Orthopnoea. Bibasal creps. Fluid overloaded. Imp: decompensated HF. Furosemide IV 80mg BD. Cr 151. K 5.1. Admit cardiology."),
 ("n3","2019-05-20","clinic","physician","Ramipril stopped. Dry cough. Sacubitril/valsartan 24/26mg BD started. Bisoprolol up to 5mg OD. Spironolactone 25mg OD added. EF 30%. U&E 2/52."),
 ("n4","2020-11-11","progress","physician","D&V 4/7. Dry. Imp: AKI on CKD3b. Cr 212. K 6.1. Entresto held. Spironolactone held. Furosemide held. IV fluids. Plan: repeat U&E 1/52."),
 ("n5","2021-02-08","telephone","nurse","U&E rpt. Cr 140. K 4.8. Entresto restarted 24/26mg BD. Spironolactone remains off. Furosemide 40mg OD."),
 ("n6","2023-06-19","clinic","physician","Seen in HF clinic. Echo: LVEF 40%. NYHA II. Bisoprolol 7.5mg OD. Entresto 49/51mg BD. Dapagliflozin 10mg OD started. Cr 135. K 4.9."),
 ("n7","2025-01-07","discharge","physician","Admitted with GI bleed. Melaena. Hb 84. 2 units RBC. Apixaban held. OGD: gastric ulcer, clipped. Omeprazole 40mg BD 8/52. Apixaban restarted day 7. Dose 2.5mg BD. Wt 58kg. Cr 141. Age 79."),
]
N["R02"] = [
 ("n1","2017-04-10","clinic","GP","T2DM. HbA1c 72. Metformin 1g BD. Gliclazide 80mg BD. eGFR 58. BMI 36. Diet advice."),
 ("n2","2018-10-22","clinic","GP","HbA1c 64. Gliclazide stopped. Recurrent hypos, 2 needing help. Sitagliptin 100mg OD started. eGFR 49."),
 ("n3","2020-07-15","clinic","GP","eGFR 38. Sitagliptin reduced to 50mg OD. Metformin reduced to 500mg BD. HbA1c 61. BP 152/88. Ramipril 2.5mg OD started."),
 ("n4","2022-03-03","clinic","physician","Metformin stopped as eGFR 24. Sitagliptin 25mg OD. HbA1c 70. Urine ACR 45. Semaglutide 0.25mg weekly started. Imp: CKD4, T2DM poor control."),
 ("n5","2023-01-30","telephone","nurse","Ozempic up to 1mg weekly. Nausea settled. Wt down 6kg."),
 ("n6","2024-08-12","discharge","physician","Adm epigastric pain. Lipase 1450. Imp: acute pancreatitis. Ozempic stopped. Pancreatitis. Insulin glargine 10 units ON started. HbA1c 68. eGFR 26."),
 ("n7","2026-02-09","clinic","physician","Seen in renal clinic. Lantus 18 units ON. HbA1c 58. eGFR 22. K 5.4. Ramipril held. Plan: repeat U&E 2/52."),
]
N["R03"] = [
 ("n1","2017-11-05","clinic","physician","81F. AF. Warfarin. INR 2.6. Digoxin 125mcg OD. Lives alone. Independent."),
 ("n2","2019-02-18","ED","physician","Fall at home. Mech fall. INR 3.4. Hb 118. No head injury sx. CT head NAD. Warfarin dose reduced. D/c home."),
 ("n3","2019-08-07","ward round","physician","Admitted UTI. Confused. Trimethoprim started. INR 5.2 on abx. Warfarin held. Vit K 1mg IV. No bleeding."),
 ("n4","2019-09-01","clinic","physician","Warfarin stopped. Labile INRs. Edoxaban 60mg OD started. Cr 98. Wt 62kg."),
 ("n5","2021-05-14","clinic","GP","Dizzy spells. ECG: AF, slow. Bradycardia HR 44. Digoxin stopped. Bisoprolol 1.25mg OD started."),
 ("n6","2023-12-02","discharge","physician","Admitted after 2nd fall. # NOF L. DHS day 1. Hb 92 post-op. Wt 54kg. Edoxaban reduced to 30mg OD. Rehab on ward. D/c to daughter."),
 ("n7","2025-04-20","telephone","pharmacist","Med review. Lixiana 30mg OD. Bisoprolol 1.25mg OD. Alendronic acid 70mg weekly started. Adcal-D3 BD. Counselled re taking."),
]
N["R04"] = [
 ("n1","2017-06-12","clinic","GP","COPD. FEV1 52%. MRC 3. Salbutamol PRN. Tiotropium 18mcg OD. Smoker 40 pack yrs. Cessation advice."),
 ("n2","2018-12-03","ED","physician","IECOPD. SpO2 86% RA. CRP 45. CXR no consolidation. Pred 40mg 5/7. Doxycycline 200mg then 100mg OD. D/c."),
 ("n3","2019-01-15","clinic","GP","Stopped smoking. 6/52 now. Tiotropium switched to Anoro Ellipta 1 puff OD. Symptoms better."),
 ("n4","2020-10-28","ward round","physician","IECOPD, 2nd adm this yr. CRP 88. Co-amoxiclav. Anoro switched to Trelegy Ellipta OD. Eos 0.4."),
 ("n5","2022-04-06","clinic","physician","FEV1 41%. Frequent exacerbations, 4 this yr. Azithromycin 250mg 3x weekly started. ECG QTc 430. LFTs normal."),
 ("n6","2023-09-19","telephone","nurse","Azithromycin stopped. Hearing loss. ENT referral."),
 ("n7","2025-11-03","clinic","physician","Seen in clinic. Trelegy continues. FEV1 38%. SpO2 91% RA. ABG pO2 7.6. LTOT assessment referral."),
]
N["R05"] = [
 ("n1","2019-03-02","ED","physician","34F. L calf swelling. D-dimer 1800. USS: L popliteal DVT. On COCP. Rivaroxaban 15mg BD started."),
 ("n2","2019-03-20","clinic","physician","COCP stopped. Provoked DVT, oestrogen. Mirena advised. Rivaroxaban 20mg OD from day 22."),
 ("n3","2019-07-01","clinic","physician","3/12 anticoag complete. Rivaroxaban stopped. Provoked. D/c from clinic."),
 ("n4","2021-10-14","ED","physician","SOB, pleuritic pain. HR 112. CTPA: bilateral PE. Unprovoked. Troponin 22. RV normal. Hb 131. Apixaban 10mg BD 7/7 then 5mg BD."),
 ("n5","2022-04-18","clinic","physician","Long-term anticoag advised. Apixaban 2.5mg BD. Thrombophilia screen: factor V Leiden heterozygous."),
 ("n6","2024-06-05","clinic","GP","Planning pregnancy. Apixaban stopped. Enoxaparin 40mg OD started. Folic acid 5mg OD."),
 ("n7","2025-02-11","telephone","nurse","Delivered 28/1. SVD. Well. Clexane 40mg OD continue 6/52 postpartum. Hb 104."),
 ("n8","2025-05-22","clinic","physician","Clexane stopped. Apixaban 2.5mg BD restarted. Not breastfeeding. Long-term."),
]
N["R06"] = [
 ("n1","2017-09-09","clinic","physician","PD dx. R tremor, bradykinesia. Co-careldopa 12.5/50 TDS started. LUTS. Tamsulosin 400mcg OD. BP 142/80."),
 ("n2","2018-05-30","clinic","physician","Tremor worse. Co-careldopa 25/100 TDS. Ropinirole 2mg TDS added."),
 ("n3","2019-12-12","clinic","physician","Wife concerned. Impulse control: gambling online. Ropinirole stopped."),
 ("n4","2020-08-25","telephone","nurse","Dizzy on standing. Lying BP 130/76, standing 96/60. Tamsulosin stopped."),
 ("n5","2021-06-30","clinic","physician","Postural drop persists. Fludrocortisone 50mcg OD started. Na 136."),
 ("n6","2022-11-17","ED","physician","Fall. Confused. Na 128. K 2.9. Fludrocortisone stopped. Midodrine 2.5mg TDS started."),
 ("n7","2024-03-08","clinic","physician","Wearing off. Sinemet switched to Madopar 125mg QDS. Rasagiline 1mg OD started. MoCA 22/30."),
 ("n8","2025-10-21","clinic","GP","Midodrine up to 5mg TDS. Standing BP 108/64. Hallucinations. Quetiapine 12.5mg ON started."),
]
N["R07"] = [
 ("n1","2018-02-14","ED","physician","Haematemesis. Hb 71. Known ALD. OGD: grade 3 varices, banded. Terlipressin. Ceftriaxone."),
 ("n2","2018-03-01","clinic","physician","Propranolol 40mg BD started. Varices prophylaxis. Alcohol 0 units since adm. Bili 48. Alb 29."),
 ("n3","2019-06-10","ward round","physician","Tense ascites. Drained 8L. Spironolactone 100mg OD started. Na 129. Cr 88."),
 ("n4","2020-01-22","ward round","physician","SBP. Ascitic WCC 620. Tazocin. Na 124. Cr 165. Imp: HRS-AKI. Spironolactone held. Albumin IV."),
 ("n5","2020-03-05","clinic","physician","Spironolactone restarted 50mg OD. Na 133. Cr 102. Ciprofloxacin 500mg OD. SBP prophylaxis."),
 ("n6","2022-07-19","clinic","physician","Propranolol stopped. Fatigue, can't work. Carvedilol 6.25mg OD started."),
 ("n7","2024-09-30","telephone","nurse","Relapse alcohol. Drinking 10 units/day. Bili 92. INR 1.8. Referred alcohol team."),
 ("n8","2026-01-12","clinic","physician","Abstinent 6/12. Bili 40. Alb 31. Carvedilol 12.5mg OD. Transplant assessment referral."),
]
N["R08"] = [
 ("n1","2017-05-16","clinic","physician","Seropositive RA. Methotrexate 15mg weekly. Folic acid 5mg weekly. CRP 34. DAS28 5.1."),
 ("n2","2018-01-09","clinic","physician","MTX up to 20mg weekly. Hydroxychloroquine 200mg BD added. ESR 40."),
 ("n3","2019-04-24","telephone","nurse","Bloods. ALT 142. Methotrexate held. Rpt LFTs 2/52."),
 ("n4","2019-05-08","telephone","nurse","ALT 58. MTX restarted 15mg weekly."),
 ("n5","2020-11-30","clinic","physician","New dry cough, SOB. HRCT: ILD, NSIP pattern. Methotrexate stopped. Rituximab planned."),
 ("n6","2021-02-15","progress","nurse","Rituximab 1g cycle 1 given. HBV neg. IgG 8.1."),
 ("n7","2023-07-03","clinic","physician","Hydroxychloroquine stopped. Retinal toxicity on OCT. DAS28 2.9. CRP 6."),
 ("n8","2025-08-27","clinic","physician","Rituximab cycle 6 given. IgG 5.2. Recurrent chest infections x3. Rituximab interval extended to 12/12. FVC 78%. Pred 5mg OD."),
]
N["R09"] = [
 ("n1","2017-08-21","clinic","GP","CKD3b. eGFR 34. Allopurinol 300mg OD. Amlodipine 10mg OD. Losartan 50mg OD. Hb 112."),
 ("n2","2018-06-13","clinic","GP","Acute gout R 1st MTP. Colchicine 500mcg BD 5/7. eGFR 27. Allopurinol reduced to 100mg OD."),
 ("n3","2019-10-02","clinic","physician","Renal clinic. CKD4. eGFR 21. Hb 94. Ferritin 45. IV iron given. K 5.6. Losartan held."),
 ("n4","2020-02-26","clinic","physician","K 5.0. Losartan restarted 25mg OD. Lokelma 5g OD started. Hb 101."),
 ("n5","2021-09-15","clinic","physician","Hb 88. Darbepoetin 30mcg fortnightly started. eGFR 17. Bicarb 18. Sodium bicarbonate 500mg TDS."),
 ("n6","2023-03-20","discharge","physician","Admitted fluid overload. eGFR 11. AV fistula formed L arm. Furosemide 80mg BD."),
 ("n7","2024-05-07","progress","nurse","HD started 3x weekly. Hypotension on HD. Losartan stopped. Amlodipine stopped."),
 ("n8","2025-12-15","clinic","physician","Stable on HD. Hb 108. K 5.3 pre-HD. Aranesp 40mcg weekly. Febuxostat 40mg OD."),
]
N["R10"] = [
 ("n1","2017-02-07","clinic","physician","T1DM since age 12. Lantus 20 units ON. Novorapid with meals. HbA1c 81. Levothyroxine 75mcg OD. TSH 6.2."),
 ("n2","2018-04-19","clinic","physician","TSH 5.8. Levothyroxine increased to 100mcg OD. HbA1c 76."),
 ("n3","2019-09-26","clinic","GP","Low mood. PHQ-9 17. Sertraline 50mg OD started."),
 ("n4","2020-05-11","telephone","GP","Sertraline stopped. Sexual dysfunction. Mirtazapine 15mg ON started."),
 ("n5","2021-12-06","ED","physician","DKA. pH 7.12. Ketones 5.8. Missed insulin 2/7. FRIII."),
 ("n6","2022-08-15","clinic","physician","Libre 2 started. Nocturnal hypos. Lantus switched to Tresiba 22 units OD. HbA1c 67. TSH 2.1."),
 ("n7","2024-10-01","clinic","physician","Hybrid closed loop: Omnipod 5 started. Tresiba stopped. HbA1c 54. Mirtazapine weaned off. Weight gain 8kg."),
 ("n8","2026-03-02","clinic","physician","Omnipod 5 going well. TIR 72%. HbA1c 51. Levothyroxine 100mcg OD. TSH 1.9."),
]
N["R11"] = [
 ("n1","2018-07-04","discharge","physician","NSTEMI. Trop 4200. Angio: LAD 90%. PCI x1 DES. Aspirin 75mg OD. Ticagrelor 90mg BD 12/12. Atorvastatin 80mg ON. Ramipril 2.5mg OD. Bisoprolol 2.5mg OD. EF 45%."),
 ("n2","2018-09-10","clinic","physician","Atorvastatin stopped. Myalgia. CK 890. Rosuvastatin 10mg ON started."),
 ("n3","2019-07-08","telephone","pharmacist","Ticagrelor stopped. 12/12 DAPT complete. Aspirin continues."),
 ("n4","2020-04-15","clinic","physician","Myalgia again. Rosuvastatin stopped. Ezetimibe 10mg OD. LDL 3.1."),
 ("n5","2021-11-22","clinic","physician","LDL 2.6. Inclisiran 284mg SC started. Ezetimibe continues."),
 ("n6","2023-02-28","ED","physician","Chest pain. Trop neg x2. ECG no change. Discharged."),
 ("n7","2024-06-12","clinic","physician","LDL 1.2. Ramipril stopped. Angioedema. Candesartan 4mg OD started. Echo EF 50%."),
 ("n8","2025-09-09","clinic","GP","Inclisiran 6-monthly. Ezetimibe 10mg OD. Candesartan 8mg OD. BP 128/76. LDL 1.1."),
]
N["R12"] = [
 ("n1","2019-01-17","clinic","GP","Alzheimer's dementia. MMSE 19. Donepezil 5mg ON. Citalopram 20mg OD."),
 ("n2","2020-06-08","clinic","GP","MMSE 16. Donepezil 10mg ON. Tolerating."),
 ("n3","2021-03-29","ward round","physician","Confused, falls. Na 122. SIADH likely. Citalopram stopped. Fluid restrict 1L."),
 ("n4","2021-04-12","discharge","physician","Na 131 on discharge. Mirtazapine 7.5mg ON started for mood/appetite."),
 ("n5","2022-10-05","telephone","nurse","Care home. Choking on thin fluids. SALT review: IDDSI level 2 fluids. Wt 44kg. MUST 2."),
 ("n6","2023-05-23","clinic","GP","Donepezil stopped. HR 42. Bradycardia. Memantine 10mg OD started."),
 ("n7","2024-11-14","ward round","physician","Aspiration pneumonia. CRP 210. Co-amoxiclav IV. DNACPR in place. Na 134."),
 ("n8","2025-02-03","clinic","GP","Memantine 20mg OD. Mirtazapine 15mg ON. Wt 41kg. Ceiling of care: ward-based."),
]

# (patient, kind, style, question, note_id or missing, facts, forbidden)
Q = [
 # R01
 ("R01","current","terse","current BB dose","n6",[["Bisoprolol 7.5mg","7.5mg"]],["Bisoprolol 2.5mg","up to 5mg"]),
 ("R01","current","shorthand","apixaban dose now?","n7",[["2.5mg BD"]],["Apixaban 5mg BD"]),
 ("R01","latest_value","terse","latest EF","n6",[["LVEF 40%","EF 40%"]],["EF 30%","LVEF 35%"]),
 ("R01","event","plain","When did he have the GI bleed and what was found on OGD?","n7",[["GI bleed"],["gastric ulcer"]],[]),
 ("R01","reason","terse","why was ramipril stopped","n3",[["Dry cough"]],[]),
 ("R01","reason","shorthand","why spiro held","n4",[["K 6.1","AKI"]],[]),
 ("R01","note_year","terse","2020 Cr","n4",[["Cr 212"]],["Cr 140","Cr 135"]),
 ("R01","uncovered","terse","ever on digoxin?","digoxin",[],[]),
 # R02
 ("R02","current","terse","insulin dose now","n7",[["18 units"]],["10 units"]),
 ("R02","current","plain","Is she still taking ramipril?","n7",[["Ramipril held"]],[]),
 ("R02","latest_value","shorthand","latest a1c","n7",[["HbA1c 58"]],["HbA1c 68","HbA1c 70"]),
 ("R02","latest_value","terse","eGFR now?","n7",[["eGFR 22"]],["eGFR 26","eGFR 24"]),
 ("R02","event","plain","When was semaglutide started?","n4",[["Semaglutide 0.25mg"]],[]),
 ("R02","reason","terse","why metformin stopped","n4",[["eGFR 24"]],[]),
 ("R02","reason","lay","why did they stop her weekly diabetes injection","n6",[["Pancreatitis"]],[]),
 ("R02","note_year","terse","2020 HbA1c","n3",[["HbA1c 61"]],["HbA1c 64","HbA1c 70"]),
 ("R02","uncovered","plain","What did her retinal screening show?","retinal",[],[]),
 # R03
 ("R03","current","terse","anticoag now?","n7",[["Lixiana 30mg"]],["Warfarin","Edoxaban 60mg"]),
 ("R03","current","plain","What is she taking for her bones?","n7",[["Alendronic acid"]],[]),
 ("R03","latest_value","terse","last INR","n3",[["INR 5.2"]],["INR 3.4","INR 2.6"]),
 ("R03","event","lay","when did she break her hip","n6",[["NOF"]],[]),
 ("R03","reason","terse","why warfarin stopped","n4",[["Labile INRs"]],[]),
 ("R03","reason","shorthand","reason dig stopped?","n5",[["Bradycardia","HR 44"]],[]),
 ("R03","note_year","terse","2023 Hb","n6",[["Hb 92"]],["Hb 118"]),
 ("R03","uncovered","terse","DEXA result?","DEXA",[],[]),
 # R04
 ("R04","current","terse","current inhaler","n7",[["Trelegy"]],["Anoro","Tiotropium"]),
 ("R04","latest_value","terse","latest FEV1","n7",[["FEV1 38%"]],["FEV1 41%","FEV1 52%"]),
 ("R04","event","lay","when did he give up smoking","n3",[["Stopped smoking"]],[]),
 ("R04","event","plain","When was he referred to ENT?","n6",[["ENT referral"]],[]),
 ("R04","reason","shorthand","why azithro stopped","n6",[["Hearing loss"]],[]),
 ("R04","note_year","terse","2020 CRP","n4",[["CRP 88"]],["CRP 45"]),
 ("R04","uncovered","plain","Has he done pulmonary rehab?","rehab",[],[]),
 # R05
 ("R05","current","terse","anticoag now","n8",[["Apixaban 2.5mg BD"]],["Rivaroxaban","Enoxaparin"]),
 ("R05","event","plain","When was the PE diagnosed?","n4",[["bilateral PE"],["CTPA"]],[]),
 ("R05","event","shorthand","thrombophilia screen result","n5",[["factor V Leiden"]],[]),
 ("R05","reason","lay","why did she have to stop the pill","n2",[["oestrogen","Provoked DVT"]],[]),
 ("R05","reason","terse","why apixaban stopped 2024","n6",[["Planning pregnancy"]],[]),
 ("R05","note_year","terse","2025 Hb","n7",[["Hb 104"]],["Hb 131"]),
 ("R05","uncovered","shorthand","lupus anticoag result?","lupus",[],[]),
 ("R05","uncovered","plain","Did she ever have an IVC filter?","IVC filter",[],[]),
 # R06
 ("R06","current","plain","What Parkinson's medication is he on now?","n7",[["Madopar"],["Rasagiline"]],["Co-careldopa","Ropinirole"]),
 ("R06","current","terse","midodrine dose","n8",[["5mg TDS"]],["2.5mg TDS"]),
 ("R06","latest_value","terse","latest standing BP","n8",[["108/64"]],["96/60"]),
 ("R06","event","plain","When was he diagnosed with Parkinson's?","n1",[["PD dx"]],[]),
 ("R06","reason","terse","why ropinirole stopped","n3",[["gambling","Impulse control"]],[]),
 ("R06","reason","lay","why did they stop his prostate tablet","n4",[["Dizzy","standing 96/60"]],[]),
 ("R06","note_year","terse","2022 Na","n6",[["Na 128"]],["Na 136"]),
 ("R06","uncovered","terse","DaTscan?","DaTscan",[],[]),
 # R07
 ("R07","current","terse","current beta blocker","n8",[["Carvedilol 12.5mg"]],["Propranolol","6.25mg"]),
 ("R07","latest_value","terse","latest bili","n8",[["Bili 40"]],["Bili 92","Bili 48"]),
 ("R07","event","plain","When did he relapse with alcohol?","n7",[["Relapse alcohol"]],[]),
 ("R07","event","shorthand","when were varices banded","n1",[["banded"]],[]),
 ("R07","reason","terse","why spiro held","n4",[["HRS-AKI","Cr 165","Na 124"]],[]),
 ("R07","reason","plain","Why was propranolol stopped?","n6",[["Fatigue"]],[]),
 ("R07","note_year","terse","Na in 2019","n3",[["Na 129"]],["Na 124","Na 133"]),
 ("R07","uncovered","terse","TIPS done?","TIPS",[],[]),
 # R08
 ("R08","current","terse","DMARDs now","n8",[["Rituximab"]],["Methotrexate","Hydroxychloroquine","MTX"]),
 ("R08","latest_value","terse","latest IgG","n8",[["IgG 5.2"]],["IgG 8.1"]),
 ("R08","event","plain","When was the ILD diagnosed?","n5",[["ILD","NSIP"]],[]),
 ("R08","reason","shorthand","why mtx held","n3",[["ALT 142"]],[]),
 ("R08","reason","terse","why HCQ stopped","n7",[["Retinal toxicity"]],[]),
 ("R08","note_year","terse","2017 DAS28","n1",[["DAS28 5.1"]],["DAS28 2.9"]),
 ("R08","uncovered","plain","Has she ever had adalimumab?","adalimumab",[],[]),
 # R09
 ("R09","current","terse","ESA dose now","n8",[["40mcg weekly"]],["30mcg fortnightly"]),
 ("R09","current","plain","What is he on for gout now?","n8",[["Febuxostat"]],["Allopurinol"]),
 ("R09","latest_value","terse","latest Hb","n8",[["Hb 108"]],["Hb 88","Hb 101","Hb 94"]),
 ("R09","latest_value","shorthand","last K?","n8",[["K 5.3"]],["K 5.0","K 5.6"]),
 ("R09","event","lay","when did he go on dialysis","n7",[["HD started"]],[]),
 ("R09","event","terse","fistula when","n6",[["AV fistula"]],[]),
 ("R09","reason","terse","why was losartan held","n3",[["K 5.6"]],[]),
 ("R09","note_year","terse","2021 eGFR","n5",[["eGFR 17"]],["eGFR 11","eGFR 21"]),
 ("R09","uncovered","plain","Is he on the transplant list?","transplant",[],[]),
 # R10
 ("R10","current","plain","What insulin regimen is she on now?","n8",[["Omnipod 5"]],["Lantus","Tresiba"]),
 ("R10","current","terse","thyroxine dose","n8",[["100mcg"]],["75mcg"]),
 ("R10","latest_value","shorthand","latest a1c","n8",[["HbA1c 51"]],["HbA1c 54","HbA1c 67"]),
 ("R10","event","terse","DKA when","n5",[["DKA"]],[]),
 ("R10","reason","lay","why did she come off sertraline","n4",[["Sexual dysfunction"]],[]),
 ("R10","note_year","terse","2018 TSH","n2",[["TSH 5.8"]],["TSH 6.2","TSH 2.1","TSH 1.9"]),
 ("R10","uncovered","terse","coeliac screen?","coeliac",[],[]),
 # R11
 ("R11","current","plain","What is he on for cholesterol now?","n8",[["Inclisiran"]],["Atorvastatin","Rosuvastatin"]),
 ("R11","current","terse","ARB dose","n8",[["Candesartan 8mg"]],["4mg OD"]),
 ("R11","latest_value","terse","latest LDL","n8",[["LDL 1.1"]],["LDL 1.2","LDL 2.6"]),
 ("R11","event","plain","When was his heart attack?","n1",[["NSTEMI"]],[]),
 ("R11","reason","terse","why atorva stopped","n2",[["Myalgia","CK 890"]],[]),
 ("R11","reason","terse","why ramipril stopped","n7",[["Angioedema"]],[]),
 ("R11","note_year","terse","2020 LDL","n4",[["LDL 3.1"]],["LDL 2.6","LDL 1.2"]),
 ("R11","uncovered","terse","CABG?","CABG",[],[]),
 ("R11","uncovered","shorthand","ever on clopidogrel","clopidogrel",[],[]),
 # R12
 ("R12","current","terse","memantine dose","n8",[["20mg OD"]],["10mg OD"]),
 ("R12","current","plain","Which antidepressant is she on now?","n8",[["Mirtazapine 15mg"]],["Citalopram","7.5mg"]),
 ("R12","latest_value","terse","latest wt","n8",[["Wt 41kg"]],["44kg"]),
 ("R12","latest_value","terse","latest Na","n7",[["Na 134"]],["Na 131","Na 122"]),
 ("R12","event","plain","When did SALT review her swallow and what did they advise?","n5",[["SALT"],["level 2"]],[]),
 ("R12","reason","shorthand","why cit stopped","n3",[["Na 122","SIADH"]],[]),
 ("R12","note_year","terse","2020 MMSE","n2",[["MMSE 16"]],["MMSE 19"]),
 ("R12","uncovered","lay","does she have a feeding tube","PEG",[],[]),
]

with open(os.path.join(D,"notes.jsonl"),"w") as f:
    for p in sorted(N):
        for nid, date, typ, role, text in N[p]:
            f.write(json.dumps({"patient_id":p,"note_id":nid,"date":date,"note_type":typ,"author_role":role,"text":text})+"\n")
with open(os.path.join(D,"questions.jsonl"),"w") as f:
    for i,(p,kind,style,q,ref,facts,forb) in enumerate(Q,1):
        o = {"id":"mq%03d"%i,"question":q,"kind":kind,"patient_id":p}
        if kind=="uncovered":
            o.update({"missing":ref,"facts":[],"forbidden":[],"style":style})
        else:
            o.update({"doc_id":"note:%s:%s"%(p,ref),"facts":facts,"forbidden":forb,"style":style})
        f.write(json.dumps(o)+"\n")
print(len(Q),"questions")
