"""cubecg_analysis: tables, figures and the latency-bandwidth model from cubecg's JSON reports
(docs/report-schema.md). Console scripts: cubecg-analyze (cli), cubecg-model (model_cli),
cubecg-analyze-io (io_figures), cubecg-analyze-store (store); docs/analysis-package.md."""
