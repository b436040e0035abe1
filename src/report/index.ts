// rl-advantages/report: the study's report (report.md, report.html), the HTML pages and their charts.
export { renderReport } from './markdown.js';
// Report: report.html and the charts
export { writeStudyReports, runStudyWithReports, type WrittenReports } from './write.js';
export { readStudyArtifacts, parseEvalItems, studyKernelFamilyRows } from './artifacts.js';
export { renderStudyHtml, type StudyArtifacts } from './study-html.js';
export { calibrationPage, decisionPage, powerPage, kernelPage } from './pages.js';
export type { CalibrationFigures, CalibrationEstimatorFigures, DecisionFigures } from './sections.js';
export { renderHtmlPage, type HtmlPage, type HtmlSection } from './html.js';
export { renderChartSvg, type VegaLiteSpec } from './charts/render.js';
export { rewardChartSpec, rewardPoints, type ArmRewards, type RewardPoint } from './charts/reward.js';
export { beffChartSpec, type BeffRatioRow } from './charts/beff.js';
export { gateChartSpec, type GateCheckRow } from './charts/gate.js';
export { decisionChartSpec, type DecisionCriterionRow } from './charts/decision.js';
export { powerChartSpec, type PowerRow } from './charts/power.js';
export { accuracyChartSpec, wilsonInterval, pairedTable, type ArmAccuracy, type PairedTable } from './charts/accuracy.js';
export { kernelChartSpec, type KernelFamilyRow } from './charts/kernel.js';
