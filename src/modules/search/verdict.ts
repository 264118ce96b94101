import { type RawBuilder, sql } from 'kysely';
import { FRAUD_TYPES, type FraudType } from '../reports/report-values.js';

/**
 * The verdict search gives with its matches: how much the evidence is worth, not how many rows
 * matched. One rule, written twice on purpose — here as a pure function (the reference, tested
 * case by case) and as SQL built from the same constants (so search keeps building its whole body
 * inside PostgreSQL); a test runs every case through both.
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

const num = (n: number) => sql.raw(`${Number(n)}::float8`);

function typeWeightSql(fraudType: RawBuilder<unknown>) {
  const cases = FRAUD_TYPES.map((type) => sql`when ${sql.lit(type)} then ${num(FRAUD_TYPE_WEIGHTS[type])}`);
  return sql`(case ${fraudType} ${sql.join(cases, sql` `)} else ${num(DEFAULT_WEIGHT)} end)`;
}

/**
 * The same rule over a relation named `relation` with columns (company_id uuid, null for public;
 * fraud_type text; reported_at timestamptz; disputed boolean), as of `now`: a scalar subquery
 * giving the risk level as text.
 */
export function riskLevelSql(relation: string, now: RawBuilder<unknown>, halfLifeDays: number) {
  // Each row's weight once (one CASE to plan), then the members' heaviest and the public share.
  const weight = sql`${typeWeightSql(sql.ref('fraud_type'))}
    * power(0.5::float8, greatest(0::float8, extract(epoch from (${now} - reported_at))::float8 / 86400) / ${num(halfLifeDays)})
    * (case when disputed then ${num(DISPUTED_FACTOR)} else 1::float8 end)`;
  return sql<string>`(
    with weighted as (select company_id, ${weight} as w from ${sql.table(relation)}),
    score as (
      select coalesce((select sum(m) from (select max(w) as m from weighted where company_id is not null group by company_id) members), 0)
        + least(${num(PUBLIC_CAP)}, coalesce((select sum(w) from weighted where company_id is null), 0) * ${num(PUBLIC_FACTOR)}) as s
    )
    select case when s >= ${num(THRESHOLDS.high)} then 'high' when s >= ${num(THRESHOLDS.medium)} then 'medium'
      when s >= ${num(THRESHOLDS.low)} then 'low' else 'none' end from score)`;
}
