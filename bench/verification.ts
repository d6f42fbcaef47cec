// One check a bench part makes of its own results (counts, no gaps, no duplicates), listed in the report.
export interface Verification {
  label: string;
  ok: boolean;
  detail: string;
}
