// The usage history as CSV: the columns of GET /billing/usage-history's text/csv answer, shared with the browser
// app's statement export so both write the same record for the same usage row (formula-safe, lib/billing/csv.ts).
import { type CsvValue, toCsv } from './csv.ts';
import type { UsageEntry } from './usage-entries.ts';
import type { UsageRow } from './usage-query.ts';

// unit and quantity came later: they follow the original columns, so a reader of the earlier file finds its columns
// where they were.
export const USAGE_CSV_COLUMNS = [
  'timestamp',
  'requestId',
  'apiKeyId',
  'modelId',
  'endpoint',
  'promptTokens',
  'completionTokens',
  'cachedTokens',
  'searches',
  'scrapedUrls',
  'usd',
  'diem',
  'unit',
  'quantity',
] as const satisfies readonly (keyof UsageRow)[];

/** One usage row's fields, in USAGE_CSV_COLUMNS order. */
export const usageCsvFields = (r: UsageRow): CsvValue[] => USAGE_CSV_COLUMNS.map((c) => r[c]);

/** The usage rows as one CSV document (header row first). */
export const usageCsv = (rows: readonly UsageRow[]): string => toCsv(USAGE_CSV_COLUMNS, rows.map(usageCsvFields));

/** The public API's usage-history CSV columns (its cursor form), the inference details flattened with dots. */
export const ENTRY_CSV_COLUMNS = [
  'timestamp',
  'sku',
  'pricePerUnitUsd',
  'units',
  'amount',
  'currency',
  'notes',
  'inferenceDetails.requestId',
  'inferenceDetails.inferenceExecutionTime',
  'inferenceDetails.promptTokens',
  'inferenceDetails.completionTokens',
] as const;

/** Ledger entries (usage-entries.ts) as one CSV document. */
export const usageEntriesCsv = (entries: readonly UsageEntry[]): string =>
  toCsv(
    ENTRY_CSV_COLUMNS,
    entries.map((e) => [
      e.timestamp,
      e.sku,
      e.pricePerUnitUsd,
      e.units,
      e.amount,
      e.currency,
      e.notes,
      e.inferenceDetails.requestId,
      e.inferenceDetails.inferenceExecutionTime,
      e.inferenceDetails.promptTokens,
      e.inferenceDetails.completionTokens,
    ]),
  );
