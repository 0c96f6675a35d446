// The billing page's routes, for the session user's account only (the account comes from the session, never from
// the request): the summary, the statement (every ledger entry, filtered and paginated) and its export as CSV or
// JSON. A charge is the usage row GET /api/v1/billing/usage-history returns, written by the same code (toUsageRow;
// usageCsvFields for the CSV's first columns, formula-safe); top-ups link to their network's explorer.
import { receiptContextOf } from './api-receipts.ts';
import { signedReceipt } from './receipts.ts';
import { z } from 'zod';
import { ApiError } from '../api/errors.ts';
import { accountKeys } from '../auth/keys.ts';
import { accountStatement, type StatementEntry, type StatementFilter, statementBatches, statementCsvHeader, statementCsvRecords } from './statement.ts';
import { explorerTxUrl, networkName } from '../wallet/networks.ts';
import type { AppDeps } from '../http/app-deps.ts';
import { appRoute, json } from '../http/app-route.ts';
import { STATEMENT_KINDS } from './wire.ts';
import type { AppStatementEntry, StatementPage } from '../wire.ts';
import { billingSummary } from './app-summary.ts';
import { memberScope, refuseTeamMember } from '../teams/scope.ts';
import { idParam, instant, intParam, queryOf, rangeRefine, totalPages } from '../api/dash-query.ts';

/** Entries read per batch of an export (each batch is one indexed read of at most this many rows per kind). */
const EXPORT_BATCH = 1000;

const filterShape = {
  from: instant.optional(),
  to: instant.optional(),
  keyId: idParam.optional(),
  modelId: idParam.optional(),
  kind: z.enum(STATEMENT_KINDS).optional(),
  /** In a team (owner and admins): only this member's charges. */
  memberId: idParam.optional(),
};
const statementQuery = z.strictObject({ ...filterShape, page: intParam(1, 1_000_000, 1), limit: intParam(1, 200, 50) }).superRefine(rangeRefine);
const exportQuery = z.strictObject({ ...filterShape, format: z.enum(['csv', 'json']).default('csv') }).superRefine(rangeRefine);

const utcDay = (ms: number) => new Date(ms).toISOString().slice(0, 10);

function present(e: StatementEntry, keyNames: Map<string, string>): AppStatementEntry {
  const c = e.credit;
  return {
    kind: e.kind,
    id: e.id,
    at: e.at,
    usage: e.usage,
    keyDescription: e.usage?.apiKeyId ? (keyNames.get(e.usage.apiKeyId) ?? null) : null,
    credit: c && {
      ...c,
      networkName: c.network ? networkName(c.network) : null,
      explorerUrl: c.network && c.transaction ? explorerTxUrl(c.network, c.transaction) : null,
    },
  };
}

export function billingRoutes(deps: AppDeps) {
  const { store } = deps.svc;
  // Key descriptions by id, from this account's keys only (a usage row can only name one of them).
  const keyNames = async (accountId: string) => new Map((await accountKeys(store, accountId).list(1000)).map((k) => [k.id, k.description]));

  // A key filter must name one of the account's own keys: another account's key is not found, as everywhere.
  async function checkKey(accountId: string, keyId: string | undefined): Promise<void> {
    if (keyId !== undefined && !(await accountKeys(store, accountId).get(keyId))) throw new ApiError('NOT_FOUND', 'API key not found', { param: 'keyId' });
  }

  return {
    billingSummary: appRoute(deps, 'session', async ({ session: { user } }) => {
      refuseTeamMember(user);
      return json(await billingSummary(deps, user));
    }),

    billingStatement: appRoute(deps, 'session', async ({ req, session: { user } }) => {
      // A team's statement is its owner's and admins'; they may narrow it to one member's charges.
      refuseTeamMember(user);
      const q = queryOf(deps, statementQuery, req);
      q.memberId = await memberScope(store, user, q.memberId);
      await checkKey(user.accountId, q.keyId);
      const [{ entries, total }, names] = await Promise.all([accountStatement(store, user.accountId, q), keyNames(user.accountId)]);
      const body: StatementPage = {
        entries: entries.map((e) => present(e, names)),
        total,
        page: q.page,
        limit: q.limit,
        totalPages: totalPages(total, q.limit),
      };
      return json(body);
    }),

    // A charge's signed receipt, for the account's own charges (the statement links each one).
    billingReceipt: appRoute(deps, 'session', async ({ params, session: { user } }) => {
      refuseTeamMember(user);
      return json(await signedReceipt(receiptContextOf(deps.svc), user.accountId, params.id));
    }),

    billingExport: appRoute(deps, 'session', async ({ req, session: { user } }) => {
      refuseTeamMember(user);
      const { format, ...filter } = queryOf(deps, exportQuery, req);
      filter.memberId = await memberScope(store, user, filter.memberId);
      await checkKey(user.accountId, filter.keyId);
      const names = format === 'json' ? await keyNames(user.accountId) : new Map<string, string>();
      const body = exportStream(user.accountId, filter, format, names);
      return new Response(body, {
        status: 200,
        headers: {
          'content-type': format === 'csv' ? 'text/csv; charset=utf-8' : 'application/json; charset=utf-8',
          'content-disposition': `attachment; filename="statement-${utcDay(Date.now())}.${format}"`,
          'cache-control': 'no-store',
        },
      });
    }),
  };

  /**
   * The export as a stream, one keyset batch per pull: memory stays one batch however long the statement, the event
   * loop is free between batches, and a client that goes away cancels it. Entries settled meanwhile are newer than
   * the cursor, so the file is one consistent snapshot of everything up to its start.
   */
  function exportStream(accountId: string, filter: StatementFilter, format: 'csv' | 'json', names: Map<string, string>): ReadableStream<Uint8Array> {
    const encoder = new TextEncoder();
    const batches = statementBatches(store, accountId, filter, EXPORT_BATCH);
    let first = true;
    return new ReadableStream<Uint8Array>({
      async start(controller) {
        controller.enqueue(encoder.encode(format === 'csv' ? statementCsvHeader() : `{"exportedAt":${JSON.stringify(new Date().toISOString())},"entries":[`));
      },
      async pull(controller) {
        const next = await batches.next();
        if (next.done) {
          if (format === 'json') controller.enqueue(encoder.encode(']}'));
          controller.close();
          return;
        }
        const entries: StatementEntry[] = next.value;
        if (format === 'csv') controller.enqueue(encoder.encode(statementCsvRecords(entries)));
        else {
          const items = entries.map((e) => JSON.stringify(present(e, names))).join(',');
          controller.enqueue(encoder.encode(first ? items : `,${items}`));
        }
        first = false;
      },
      async cancel() {
        await batches.return(undefined);
      },
    });
  }
}
