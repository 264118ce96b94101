import { sql } from 'kysely';
import type { FraudType } from '../reports/report-values.js';

/**
 * The verdict search gives with its matches: how much the evidence is worth, not how many rows
 * matched. One rule, a pure function tested case by case; search reads its inputs in the same
 * statement as the body (`verdictInputsSql`) and applies it in Node.
 *
 * 1. A report's weight = its fraud type's weight × ½^(age in days / half-life)
 *    × ½ while it has an unresolved dispute.
 * 2. Each member company counts once: its heaviest report (ten reports from one member are one member).
 * 3. Published public reports count less: their weights are summed, × 0.3, and capped at 1.
 * 4. Score = the members' sum + the public share. none < 0.1 ≤ low < 1 ≤ medium < 2.5 ≤ high.
 */
export const FRAUD_TYPE_WEIGHTS: Record<FraudType, number> = {
  'sanctioned/ofac': 2,
  money_mule: 1.5,
  identity_theft: 1.5,
  fraudulent_loan: 1.2,
  hacker: 1.2,
  theft: 1,
  social_engineering: 1,
  romance_fraud: 1,
  land_property_scams: 1,
  suspicious_pep: 0.8,
  other: 0.5,
};
/** A fraud type the table does not know weighs as `other`. */
const DEFAULT_WEIGHT = FRAUD_TYPE_WEIGHTS.other;
export const DISPUTED_FACTOR = 0.5;
export const PUBLIC_FACTOR = 0.3;
export const PUBLIC_CAP = 1;
export const THRESHOLDS = { low: 0.1, medium: 1, high: 2.5 } as const;

export const RISK_LEVELS = ['none', 'low', 'medium', 'high'] as const;
export type RiskLevel = (typeof RISK_LEVELS)[number];

export interface VerdictReport {
  /** The member company that filed it; null for a published public report. */
  companyId: string | null;
  fraudType: string;
  reportedAt: Date;
  /** Whether it has an unresolved dispute. */
  disputed: boolean;
}

const DAY_MS = 86_400_000;

export function reportWeight(report: VerdictReport, now: Date, halfLifeDays: number): number {
  const type = (FRAUD_TYPE_WEIGHTS as Record<string, number>)[report.fraudType] ?? DEFAULT_WEIGHT;
  const ageDays = Math.max(0, now.getTime() - report.reportedAt.getTime()) / DAY_MS;
  return type * 0.5 ** (ageDays / halfLifeDays) * (report.disputed ? DISPUTED_FACTOR : 1);
}

export function levelOf(score: number): RiskLevel {
  if (score >= THRESHOLDS.high) return 'high';
  if (score >= THRESHOLDS.medium) return 'medium';
  if (score >= THRESHOLDS.low) return 'low';
  return 'none';
}

export function verdict(
  reports: readonly VerdictReport[],
  now: Date,
  halfLifeDays: number,
): { score: number; riskLevel: RiskLevel } {
  const heaviest = new Map<string, number>();
  let publicSum = 0;
  for (const report of reports) {
    const weight = reportWeight(report, now, halfLifeDays);
    if (report.companyId === null) publicSum += weight;
    else heaviest.set(report.companyId, Math.max(heaviest.get(report.companyId) ?? 0, weight));
  }
  let score = Math.min(PUBLIC_CAP, publicSum * PUBLIC_FACTOR);
  for (const weight of heaviest.values()) score += weight;
  return { score, riskLevel: levelOf(score) };
}

/** One matching report as search hands it to the rule: `[companyId, fraudType, reportedAt ms, disputed]`. */
export type VerdictInput = [string | null, string, number, boolean];

export function verdictOfInputs(inputs: readonly VerdictInput[] | null, now: Date, halfLifeDays: number): RiskLevel {
  const reports = (inputs ?? []).map(([companyId, fraudType, at, disputed]) => ({
    companyId,
    fraudType,
    reportedAt: new Date(at),
    disputed,
  }));
  return verdict(reports, now, halfLifeDays).riskLevel;
}

/**
 * The verdict's inputs over a relation with columns (company_id uuid, null for public; fraud_type
 * text; reported_at timestamptz; disputed boolean), as JSON (null when it is empty): an aggregate,
 * so search adds it to the summary's own pass over the matches. The rule itself runs in Node
 * (`verdict`): computing it in SQL cost more CPU per search than the rest of the summary, most of it
 * planning (decision 0052).
 */
export function verdictInputsSql(alias: string) {
  const col = (name: string) => sql.ref(`${alias}.${name}`);
  return sql<string>`json_agg(json_build_array(${col('company_id')}, ${col('fraud_type')}, (extract(epoch from ${col('reported_at')}) * 1000)::float8, ${col('disputed')}))`;
}
