// One schema, one ordered list of migrations, applied at start on SQLite and PostgreSQL alike. Amounts are integer
// micro-units (1 USD = 1,000,000); times are Unix milliseconds.

/** A statement the same on both stores, or one per store where their dialects differ (triggers). */
export type MigrationSql = string | { sqlite: string; postgres: string };

/** `sqlite` / `postgres`: statements for that store only, run after `sql` (a full-text index has no portable form). */
export const MIGRATIONS: { version: number; name: string; sql: MigrationSql[]; sqlite?: string[]; postgres?: string[] }[] = [
  {
    version: 1,
    name: 'accounts, keys, ledger, usage, characters',
    sql: [
      `CREATE TABLE accounts (
        id TEXT PRIMARY KEY,
        name TEXT NOT NULL,
        tier TEXT NOT NULL DEFAULT 'default',
        created_at BIGINT NOT NULL,
        usd BIGINT NOT NULL DEFAULT 0,
        usd_held BIGINT NOT NULL DEFAULT 0,
        diem BIGINT NOT NULL DEFAULT 0,
        diem_held BIGINT NOT NULL DEFAULT 0,
        diem_daily BIGINT NOT NULL DEFAULT 0,
        diem_epoch TEXT NOT NULL DEFAULT '',
        CHECK (usd >= 0 AND diem >= 0 AND usd_held >= 0 AND diem_held >= 0)
      )`,
      `CREATE TABLE api_keys (
        id TEXT PRIMARY KEY,
        account_id TEXT NOT NULL REFERENCES accounts(id),
        key_hash TEXT NOT NULL UNIQUE,
        last6 TEXT NOT NULL,
        type TEXT NOT NULL,
        description TEXT NOT NULL DEFAULT '',
        created_at BIGINT NOT NULL,
        expires_at BIGINT,
        revoked_at BIGINT,
        last_used_at BIGINT,
        limit_usd BIGINT,
        limit_diem BIGINT,
        limit_period TEXT NOT NULL DEFAULT 'EPOCH'
      )`,
      `CREATE INDEX api_keys_account ON api_keys(account_id)`,
      // An in-flight request's reserved credit; a row outlives a crash so the hold can be released at the next start.
      `CREATE TABLE holds (
        request_id TEXT PRIMARY KEY,
        account_id TEXT NOT NULL REFERENCES accounts(id),
        key_id TEXT,
        usd BIGINT NOT NULL,
        diem BIGINT NOT NULL,
        created_at BIGINT NOT NULL
      )`,
      `CREATE TABLE usage (
        request_id TEXT PRIMARY KEY,
        account_id TEXT NOT NULL REFERENCES accounts(id),
        key_id TEXT,
        model_id TEXT NOT NULL,
        endpoint TEXT NOT NULL,
        prompt_tokens BIGINT NOT NULL,
        completion_tokens BIGINT NOT NULL,
        cached_tokens BIGINT NOT NULL DEFAULT 0,
        usd BIGINT NOT NULL,
        diem BIGINT NOT NULL,
        created_at BIGINT NOT NULL
      )`,
      `CREATE INDEX usage_account_time ON usage(account_id, created_at)`,
      `CREATE TABLE credit_grants (
        id TEXT PRIMARY KEY,
        account_id TEXT NOT NULL REFERENCES accounts(id),
        usd BIGINT NOT NULL,
        note TEXT NOT NULL DEFAULT '',
        created_at BIGINT NOT NULL
      )`,
      `CREATE TABLE characters (
        slug TEXT PRIMARY KEY,
        name TEXT NOT NULL,
        description TEXT,
        system_prompt TEXT NOT NULL,
        model_id TEXT,
        tags TEXT NOT NULL DEFAULT '[]',
        photo_url TEXT,
        adult BOOLEAN NOT NULL DEFAULT FALSE,
        featured BOOLEAN NOT NULL DEFAULT FALSE,
        web_enabled BOOLEAN NOT NULL DEFAULT FALSE,
        created_at BIGINT NOT NULL,
        updated_at BIGINT NOT NULL
      )`,
    ],
  },
  {
    version: 2,
    name: 'key spend counters, rate-limit breach log, usage by key',
    sql: [
      // What a key has spent in its current limit period (EPOCH: a UTC day, MONTH, LIFETIME), kept at settlement so
      // admission checks a key's consumption limit with one read.
      `ALTER TABLE api_keys ADD COLUMN spent_usd BIGINT NOT NULL DEFAULT 0`,
      `ALTER TABLE api_keys ADD COLUMN spent_diem BIGINT NOT NULL DEFAULT 0`,
      `ALTER TABLE api_keys ADD COLUMN spent_period TEXT NOT NULL DEFAULT ''`,
      `CREATE INDEX usage_key_time ON usage(key_id, created_at)`,
      `CREATE TABLE rate_limit_breaches (
        id TEXT PRIMARY KEY,
        account_id TEXT,
        key_id TEXT,
        model_id TEXT NOT NULL,
        type TEXT NOT NULL,
        tier TEXT NOT NULL,
        created_at BIGINT NOT NULL
      )`,
      `CREATE INDEX rate_limit_breaches_account_time ON rate_limit_breaches(account_id, created_at)`,
    ],
  },
  {
    version: 3,
    name: 'web searches and scraped pages on usage rows',
    sql: [`ALTER TABLE usage ADD COLUMN searches BIGINT NOT NULL DEFAULT 0`, `ALTER TABLE usage ADD COLUMN scraped_urls BIGINT NOT NULL DEFAULT 0`],
  },
  {
    version: 4,
    name: 'browser app: users, sessions, conversations, messages',
    sql: [
      // A person using the browser app. Each user owns one service account, used through a server-held key.
      `CREATE TABLE users (
        id TEXT PRIMARY KEY,
        email TEXT NOT NULL UNIQUE,
        password_hash TEXT NOT NULL,
        display_name TEXT NOT NULL DEFAULT '',
        is_admin BOOLEAN NOT NULL DEFAULT FALSE,
        account_id TEXT NOT NULL REFERENCES accounts(id),
        created_at BIGINT NOT NULL
      )`,
      // Sessions are looked up by the SHA-256 of the cookie value; the CSRF token is bound to the session.
      `CREATE TABLE sessions (
        id_hash TEXT PRIMARY KEY,
        user_id TEXT NOT NULL REFERENCES users(id),
        csrf_token TEXT NOT NULL,
        created_at BIGINT NOT NULL,
        expires_at BIGINT NOT NULL,
        last_seen_at BIGINT NOT NULL
      )`,
      `CREATE INDEX sessions_user ON sessions(user_id)`,
      `CREATE TABLE conversations (
        id TEXT PRIMARY KEY,
        user_id TEXT NOT NULL REFERENCES users(id),
        title TEXT NOT NULL,
        model_id TEXT,
        character_slug TEXT,
        settings TEXT NOT NULL DEFAULT '{}',
        created_at BIGINT NOT NULL,
        updated_at BIGINT NOT NULL
      )`,
      `CREATE INDEX conversations_user_updated ON conversations(user_id, updated_at)`,
      // Messages form a tree (parent_id), so an edited message keeps the earlier branch.
      `CREATE TABLE messages (
        id TEXT PRIMARY KEY,
        conversation_id TEXT NOT NULL REFERENCES conversations(id) ON DELETE CASCADE,
        parent_id TEXT,
        role TEXT NOT NULL,
        content TEXT NOT NULL,
        reasoning TEXT,
        attachments TEXT NOT NULL DEFAULT '[]',
        citations TEXT NOT NULL DEFAULT '[]',
        model_id TEXT,
        status TEXT NOT NULL DEFAULT 'complete',
        usage TEXT,
        created_at BIGINT NOT NULL
      )`,
      `CREATE INDEX messages_conversation ON messages(conversation_id, created_at)`,
    ],
  },
  {
    version: 5,
    name: 'message errors and live generations',
    sql: [
      // A failed turn keeps its error (code, status, message, retry-after) so the chat can show it after a reload.
      `ALTER TABLE messages ADD COLUMN error TEXT`,
      // When a streaming answer was last written: a reader on another instance can tell a live generation from one
      // whose process died.
      `ALTER TABLE messages ADD COLUMN updated_at BIGINT`,
    ],
  },
  {
    version: 6,
    name: 'wallet users: wallets, sign-in nonces, x402 top-ups',
    sql: [
      // A wallet (EVM or Solana address) owns one account, used through a server-held key whose secret nobody knows.
      `CREATE TABLE wallets (
        id TEXT PRIMARY KEY,
        namespace TEXT NOT NULL,
        address TEXT NOT NULL,
        account_id TEXT NOT NULL REFERENCES accounts(id),
        key_id TEXT NOT NULL REFERENCES api_keys(id),
        created_at BIGINT NOT NULL,
        UNIQUE (namespace, address)
      )`,
      // Sign-In-With-X nonces: issued by the server (or, in the legacy payload form, chosen by the client and keyed
      // by wallet), each usable once; the primary key makes a reuse fail across processes sharing the database.
      `CREATE TABLE siwx_nonces (
        nonce TEXT PRIMARY KEY,
        issued_at BIGINT NOT NULL,
        expires_at BIGINT NOT NULL,
        used_at BIGINT,
        address TEXT
      )`,
      `CREATE INDEX siwx_nonces_expiry ON siwx_nonces(expires_at)`,
      // One row per signed payment, keyed by what the chain itself allows once (EVM: token + payer + EIP-3009
      // nonce; Solana: the transaction message), so a replay in sequence, concurrently or on another instance finds
      // the row. status: pending (claimed by an attempt, claim_id) → settled (credited in the same transaction) or
      // failed (may be claimed again).
      `CREATE TABLE x402_topups (
        id TEXT PRIMARY KEY,
        payment_key TEXT NOT NULL UNIQUE,
        network TEXT NOT NULL,
        asset TEXT NOT NULL,
        payer TEXT NOT NULL,
        amount BIGINT NOT NULL,
        status TEXT NOT NULL,
        claim_id TEXT NOT NULL,
        wallet_id TEXT REFERENCES wallets(id),
        tx_hash TEXT,
        error TEXT,
        created_at BIGINT NOT NULL,
        updated_at BIGINT NOT NULL
      )`,
      `CREATE INDEX x402_topups_wallet ON x402_topups(wallet_id, created_at)`,
    ],
  },
  {
    version: 7,
    name: 'browser app: wallet users',
    sql: [
      // A browser-app user who signed in with a wallet is linked to that wallet (and uses its account and key); one
      // user per wallet. Email users keep wallet_id NULL (NULLs do not collide in a UNIQUE index on either database).
      `ALTER TABLE users ADD COLUMN wallet_id TEXT REFERENCES wallets(id)`,
      `CREATE UNIQUE INDEX users_wallet ON users(wallet_id)`,
    ],
  },
  {
    version: 8,
    name: 'billing units on usage rows',
    sql: [
      // The unit a request was billed in (token, image, character, second, rpc_credit, call) and how many; tokens
      // count prompt and completion together. Earlier rows were tokens, except the per-call augment endpoints.
      `ALTER TABLE usage ADD COLUMN unit TEXT NOT NULL DEFAULT 'token'`,
      `ALTER TABLE usage ADD COLUMN quantity BIGINT NOT NULL DEFAULT 0`,
      `UPDATE usage SET quantity = prompt_tokens + completion_tokens`,
      `UPDATE usage SET unit = 'call', quantity = 1 WHERE endpoint LIKE '/augment/%'`,
    ],
  },
  {
    version: 17,
    name: 'key model privacy, server secrets',
    sql: [
      // Which models a key may call (ALL, PRIVATE_TEXT, PRIVATE_ONLY), as the public key object carries it.
      `ALTER TABLE api_keys ADD COLUMN model_privacy TEXT NOT NULL DEFAULT 'ALL'`,
      // Random secrets the server makes once and every instance on the database shares (lib/auth/server-secret.ts):
      // they sign usage-history cursors and web3 key tokens, so a token issued by one instance verifies on another.
      `CREATE TABLE server_secrets (
        name TEXT PRIMARY KEY,
        value TEXT NOT NULL,
        created_at BIGINT NOT NULL
      )`,
    ],
  },
  {
    version: 13,
    name: 'operator: disabled accounts and the audit log',
    sql: [
      // Set by the operator: every credential of the account (API keys, wallet sign-ins, browser sessions) is refused
      // while it is set; clearing it restores them.
      `ALTER TABLE accounts ADD COLUMN disabled_at BIGINT`,
      // Who did what to which account from the browser app's operator pages (details: the action's JSON arguments).
      `CREATE TABLE operator_audit (
        id TEXT PRIMARY KEY,
        actor_user_id TEXT NOT NULL,
        actor TEXT NOT NULL,
        action TEXT NOT NULL,
        account_id TEXT NOT NULL,
        details TEXT NOT NULL DEFAULT '{}',
        created_at BIGINT NOT NULL
      )`,
      `CREATE INDEX operator_audit_time ON operator_audit(created_at)`,
    ],
  },
  {
    version: 12,
    name: 'durable jobs (video, long audio)',
    sql: [
      // Work that outlives its request (lib/jobs). The id is the queue_id, the hold's request id and the usage row's
      // key. status: queued → running (claimed under a lease) → succeeded | failed. billing: held → settling → settled,
      // or held → releasing → released; the job machinery owns the hold until then (the instance sweep leaves it be).
      // Times are the database's clock (Unix ms), so leases and durations hold across instances.
      `CREATE TABLE jobs (
        id TEXT PRIMARY KEY,
        kind TEXT NOT NULL,
        model_id TEXT NOT NULL,
        account_id TEXT NOT NULL REFERENCES accounts(id),
        key_id TEXT,
        request TEXT NOT NULL,
        status TEXT NOT NULL,
        billing TEXT NOT NULL,
        quote_usd BIGINT NOT NULL,
        quote_diem BIGINT NOT NULL,
        hold_usd BIGINT NOT NULL,
        hold_diem BIGINT NOT NULL,
        cost_usd BIGINT,
        cost_diem BIGINT,
        quantity BIGINT,
        attempts INTEGER NOT NULL DEFAULT 0,
        lease_owner TEXT,
        lease_until BIGINT,
        state TEXT,
        created_at BIGINT NOT NULL,
        started_at BIGINT,
        finished_at BIGINT,
        updated_at BIGINT NOT NULL,
        media_path TEXT,
        media_type TEXT,
        media_bytes BIGINT,
        error TEXT,
        deleted_at BIGINT
      )`,
      `CREATE INDEX jobs_claim ON jobs(status, created_at)`,
      `CREATE INDEX jobs_account ON jobs(account_id, status)`,
      `CREATE INDEX jobs_model_finished ON jobs(model_id, status, finished_at)`,
      `CREATE INDEX jobs_billing ON jobs(billing)`,
    ],
  },
  {
    version: 11,
    name: 'crypto JSON-RPC proxy: idempotency keys and what each call was',
    sql: [
      // One row per (account, Idempotency-Key): claimed by the first request (state pending, owner = its request id),
      // then the answer it was billed for and its calls' ids (state done), replayed for 24 hours with the retry's ids.
      // The primary key makes a duplicate on any instance find the claim instead of forwarding a second time.
      `CREATE TABLE rpc_idempotency (
        account_id TEXT NOT NULL REFERENCES accounts(id),
        idem_key TEXT NOT NULL,
        request_hash TEXT NOT NULL,
        state TEXT NOT NULL,
        owner TEXT NOT NULL,
        body TEXT,
        call_ids TEXT,
        credits BIGINT,
        created_at BIGINT NOT NULL,
        updated_at BIGINT NOT NULL,
        PRIMARY KEY (account_id, idem_key)
      )`,
      `CREATE INDEX rpc_idempotency_created ON rpc_idempotency(created_at)`,
      // Beside a proxy call's usage row (same request id): its network and, per method, calls, credits and error answers.
      `CREATE TABLE rpc_calls (
        request_id TEXT NOT NULL,
        account_id TEXT NOT NULL REFERENCES accounts(id),
        network TEXT NOT NULL,
        method TEXT NOT NULL,
        calls INTEGER NOT NULL,
        credits BIGINT NOT NULL,
        errors INTEGER NOT NULL,
        created_at BIGINT NOT NULL,
        PRIMARY KEY (request_id, method)
      )`,
      `CREATE INDEX rpc_calls_account_time ON rpc_calls(account_id, created_at)`,
    ],
  },
  {
    version: 14,
    name: 'browser app: generated images per user',
    sql: [
      // Images the browser app's image mode made (generated, varied, upscaled, cut out), owned by one user: every read
      // filters by user_id (lib/conversations/images.ts). The bytes are base64 text, as message attachments are, and
      // the last column, so reading the other columns (the gallery) never loads them. request_id is the usage row of
      // the call that made the image; conversation_id and message_id place it in a chat (both null: gallery only).
      `CREATE TABLE user_images (
        id TEXT PRIMARY KEY,
        user_id TEXT NOT NULL REFERENCES users(id),
        conversation_id TEXT,
        message_id TEXT,
        source_id TEXT,
        action TEXT NOT NULL,
        model_id TEXT NOT NULL,
        prompt TEXT NOT NULL,
        params TEXT NOT NULL DEFAULT '{}',
        seed BIGINT,
        width INTEGER NOT NULL,
        height INTEGER NOT NULL,
        content_type TEXT NOT NULL,
        bytes BIGINT NOT NULL,
        request_id TEXT NOT NULL,
        cost_usd BIGINT NOT NULL,
        cost_diem BIGINT NOT NULL,
        created_at BIGINT NOT NULL,
        data TEXT NOT NULL
      )`,
      `CREATE INDEX user_images_user_time ON user_images(user_id, created_at)`,
      `CREATE INDEX user_images_message ON user_images(message_id)`,
    ],
  },
  {
    version: 15,
    name: 'characters people make: owners, visibility, avatars, stats, reviews, chat snapshots',
    sql: [
      // A stable id beside the slug (the Public ID, which an owner may change while private): reviews point at the id.
      // The seeded characters keep their slug as id. owner_user_id NULL: shipped with the server. Existing rows were
      // public (the seeds), new ones are private until published.
      `ALTER TABLE characters ADD COLUMN id TEXT`,
      `UPDATE characters SET id = slug`,
      `CREATE UNIQUE INDEX characters_id ON characters(id)`,
      `ALTER TABLE characters ADD COLUMN owner_user_id TEXT REFERENCES users(id)`,
      `ALTER TABLE characters ADD COLUMN visibility TEXT NOT NULL DEFAULT 'public'`,
      `ALTER TABLE characters ADD COLUMN first_message TEXT NOT NULL DEFAULT ''`,
      `ALTER TABLE characters ADD COLUMN example_dialogue TEXT NOT NULL DEFAULT ''`,
      `ALTER TABLE characters ADD COLUMN temperature DOUBLE PRECISION`,
      // The avatar: a 512×512 WebP as base64 text (as user_images keeps its bytes), read only by the avatar route.
      `ALTER TABLE characters ADD COLUMN avatar_type TEXT`,
      `ALTER TABLE characters ADD COLUMN avatar_data TEXT`,
      // Kept with each review write and conversation start, so browse can sort by them without aggregating.
      `ALTER TABLE characters ADD COLUMN chat_count BIGINT NOT NULL DEFAULT 0`,
      `ALTER TABLE characters ADD COLUMN rating_count BIGINT NOT NULL DEFAULT 0`,
      `ALTER TABLE characters ADD COLUMN rating_sum BIGINT NOT NULL DEFAULT 0`,
      `CREATE INDEX characters_owner ON characters(owner_user_id)`,
      `CREATE INDEX characters_visibility ON characters(visibility, created_at)`,
      // One review per (character, user); removed with the character.
      `CREATE TABLE character_reviews (
        id TEXT PRIMARY KEY,
        character_id TEXT NOT NULL,
        user_id TEXT NOT NULL REFERENCES users(id),
        rating INTEGER NOT NULL,
        text TEXT NOT NULL DEFAULT '',
        created_at BIGINT NOT NULL,
        updated_at BIGINT NOT NULL,
        UNIQUE (character_id, user_id),
        CHECK (rating >= 1 AND rating <= 5)
      )`,
      `CREATE INDEX character_reviews_character ON character_reviews(character_id, created_at)`,
      // What the character was when the chat began (name, instructions, example dialogue, temperature, model), so the
      // chat keeps its persona after the character is edited, unpublished or deleted.
      `ALTER TABLE conversations ADD COLUMN character_snapshot TEXT`,
    ],
  },
  {
    version: 10,
    name: 'instance leases: holds carry their owner, instances renew a heartbeat',
    sql: [
      // One row per running server on a shared database (PostgreSQL), renewed every few seconds by the database's own
      // clock; a graceful stop deletes it. A hold whose instance has no fresh heartbeat belongs to a dead process, and
      // any live instance releases it (lib/billing/instance-lease.ts). Holds from before this migration (no owner)
      // are released once they are older than any request may run.
      `CREATE TABLE instances (
        id TEXT PRIMARY KEY,
        started_at BIGINT NOT NULL,
        heartbeat_at BIGINT NOT NULL
      )`,
      `ALTER TABLE holds ADD COLUMN instance_id TEXT`,
      `CREATE INDEX holds_instance ON holds(instance_id)`,
    ],
  },
  {
    version: 9,
    name: 'the browser app key by a column',
    sql: [
      // The key the browser app acts through for a user was found by its description, which PATCH /api_keys can
      // change. A flag marks it instead (1 on at most one live key per user account); existing ones are marked once.
      `ALTER TABLE api_keys ADD COLUMN browser_app INTEGER NOT NULL DEFAULT 0`,
      `UPDATE api_keys SET browser_app = 1
         WHERE type = 'INFERENCE' AND description = 'browser app' AND account_id IN (SELECT account_id FROM users)`,
    ],
  },
  {
    version: 16,
    name: "the operator's catalogue changes",
    sql: [
      // What the operator changed from the browser (lib/models/operator-catalogue.ts), merged over the catalogue file
      // at start and on every change, so no restart is needed. A row with \`entry\` adds a model (the whole catalogue
      // entry as JSON); one without overrides a file model. \`api_key\` is an added upstream's key, kept only here and
      // never sent to a browser; \`pricing\` is JSON of token prices over the entry's.
      `CREATE TABLE operator_catalogue (
        model_id TEXT PRIMARY KEY,
        entry TEXT,
        api_key TEXT,
        disabled BOOLEAN NOT NULL DEFAULT FALSE,
        pricing TEXT,
        updated_at BIGINT NOT NULL
      )`,
    ],
  },
  {
    version: 18,
    name: 'refunds of undelivered answers',
    sql: [
      // Zero-completion insurance (lib/billing/refund.ts): a charge given back moves here, the row keeps its usage.
      `ALTER TABLE usage ADD COLUMN refunded_usd BIGINT`,
      `ALTER TABLE usage ADD COLUMN refunded_diem BIGINT`,
    ],
  },
  {
    version: 19,
    name: 'private chats',
    sql: [
      // Private chats (lib/conversations/private.ts): everything the page wrote is sealed under a key only the user
      // holds (derived from their passphrase in the page). The vault row keeps the derivation's salt and a sealed
      // known text, so the page can tell a wrong passphrase; the server can open none of it.
      `CREATE TABLE private_vaults (
        user_id TEXT PRIMARY KEY REFERENCES users(id),
        salt TEXT NOT NULL,
        check_text TEXT NOT NULL,
        created_at BIGINT NOT NULL
      )`,
      `CREATE TABLE private_chats (
        id TEXT PRIMARY KEY,
        user_id TEXT NOT NULL REFERENCES users(id),
        title TEXT NOT NULL,
        model_id TEXT NOT NULL,
        created_at BIGINT NOT NULL,
        updated_at BIGINT NOT NULL
      )`,
      `CREATE INDEX private_chats_user ON private_chats(user_id, updated_at)`,
      `CREATE TABLE private_messages (
        id TEXT PRIMARY KEY,
        chat_id TEXT NOT NULL REFERENCES private_chats(id) ON DELETE CASCADE,
        user_id TEXT NOT NULL REFERENCES users(id),
        seq INTEGER NOT NULL,
        role TEXT NOT NULL,
        content TEXT NOT NULL,
        request_id TEXT,
        created_at BIGINT NOT NULL
      )`,
      `CREATE UNIQUE INDEX private_messages_seq ON private_messages(chat_id, seq)`,
    ],
  },
  {
    version: 20,
    name: 'sub-micro-unit remainders',
    sql: [
      // Work cheaper than a micro-unit (a few embedding tokens) was billed 0 every time. The fraction a settlement
      // does not charge is carried here, in millionths of a micro-unit, and added to the account's next one.
      `ALTER TABLE accounts ADD COLUMN usd_frac BIGINT NOT NULL DEFAULT 0`,
      `ALTER TABLE accounts ADD COLUMN diem_frac BIGINT NOT NULL DEFAULT 0`,
    ],
  },
  {
    version: 22,
    name: 'knowledge collections',
    sql: [
      // Knowledge (lib/knowledge): a user's collections of files, cut into chunks that a chat retrieves and cites.
      // A file keeps its upload (`source`, a data: URL) only until it is indexed; `status` is queued → indexing →
      // ready | failed, claimed under a lease so an index outlives a restart and runs once across instances.
      `CREATE TABLE knowledge_collections (
        id TEXT PRIMARY KEY,
        user_id TEXT NOT NULL REFERENCES users(id),
        name TEXT NOT NULL,
        created_at BIGINT NOT NULL,
        updated_at BIGINT NOT NULL
      )`,
      `CREATE INDEX knowledge_collections_user ON knowledge_collections(user_id, updated_at)`,
      `CREATE TABLE knowledge_files (
        id TEXT PRIMARY KEY,
        collection_id TEXT NOT NULL REFERENCES knowledge_collections(id) ON DELETE CASCADE,
        user_id TEXT NOT NULL REFERENCES users(id),
        name TEXT NOT NULL,
        type TEXT NOT NULL,
        size BIGINT NOT NULL,
        status TEXT NOT NULL,
        error TEXT,
        note TEXT,
        chars BIGINT NOT NULL DEFAULT 0,
        chunks BIGINT NOT NULL DEFAULT 0,
        chunks_done BIGINT NOT NULL DEFAULT 0,
        embedding_model TEXT,
        source TEXT,
        lease_owner TEXT,
        lease_until BIGINT,
        attempts INTEGER NOT NULL DEFAULT 0,
        created_at BIGINT NOT NULL,
        updated_at BIGINT NOT NULL
      )`,
      `CREATE INDEX knowledge_files_collection ON knowledge_files(collection_id, created_at)`,
      `CREATE INDEX knowledge_files_status ON knowledge_files(status, lease_until)`,
      // `embedding`: the chunk's vector as base64 little-endian float32 (null: lexical only), from `embedding_model`.
      `CREATE TABLE knowledge_chunks (
        id TEXT PRIMARY KEY,
        file_id TEXT NOT NULL REFERENCES knowledge_files(id) ON DELETE CASCADE,
        collection_id TEXT NOT NULL,
        user_id TEXT NOT NULL,
        seq INTEGER NOT NULL,
        text TEXT NOT NULL,
        embedding TEXT,
        embedding_model TEXT,
        created_at BIGINT NOT NULL
      )`,
      `CREATE INDEX knowledge_chunks_file ON knowledge_chunks(file_id, seq)`,
      `CREATE INDEX knowledge_chunks_collection ON knowledge_chunks(collection_id)`,
    ],
  },
  {
    version: 23,
    name: 'knowledge full-text index',
    sql: [],
    // SQLite: an FTS5 index over the chunks' text (external content, kept by triggers, so a deleted file's chunks,
    // cascaded, leave it too). PostgreSQL: a generated tsvector column (English configuration) under a GIN index.
    sqlite: [
      `CREATE VIRTUAL TABLE knowledge_fts USING fts5(text, content='knowledge_chunks', content_rowid='rowid', tokenize='porter unicode61')`,
      `CREATE TRIGGER knowledge_chunks_fts_insert AFTER INSERT ON knowledge_chunks BEGIN
        INSERT INTO knowledge_fts(rowid, text) VALUES (new.rowid, new.text);
      END`,
      `CREATE TRIGGER knowledge_chunks_fts_delete AFTER DELETE ON knowledge_chunks BEGIN
        INSERT INTO knowledge_fts(knowledge_fts, rowid, text) VALUES ('delete', old.rowid, old.text);
      END`,
    ],
    postgres: [
      // Stored, so ranking reads each match's vector rather than parsing its text again.
      `ALTER TABLE knowledge_chunks ADD COLUMN tsv tsvector GENERATED ALWAYS AS (to_tsvector('english', text)) STORED`,
      `CREATE INDEX knowledge_chunks_fts ON knowledge_chunks USING GIN (tsv)`,
    ],
  },
  {
    version: 21,
    name: 'tools and MCP servers',
    sql: [
      // The operator's MCP servers (lib/tools/mcp-servers.ts): an HTTP endpoint or a program run over stdio. Headers
      // (an API key for the server) are sealed like upstream keys; a user's own headers for a server sit apart, sealed.
      `CREATE TABLE mcp_servers (
        id TEXT PRIMARY KEY,
        name TEXT NOT NULL UNIQUE,
        transport TEXT NOT NULL,
        url TEXT,
        command TEXT,
        args TEXT NOT NULL,
        headers TEXT,
        enabled INTEGER NOT NULL,
        created_at BIGINT NOT NULL,
        updated_at BIGINT NOT NULL
      )`,
      `CREATE TABLE mcp_user_headers (
        server_id TEXT NOT NULL REFERENCES mcp_servers(id) ON DELETE CASCADE,
        user_id TEXT NOT NULL REFERENCES users(id),
        headers TEXT NOT NULL,
        updated_at BIGINT NOT NULL,
        PRIMARY KEY (server_id, user_id)
      )`,
      // The tool calls an answer made (name, arguments, result, timing), as JSON, so a reload shows them.
      `ALTER TABLE messages ADD COLUMN tool_steps TEXT`,
    ],
  },
  {
    version: 24,
    name: 'memories',
    sql: [
      // Memory across chats (lib/memory): facts a user chose to keep (saved, or a suggestion accepted), each one
      // editable and switchable; never written by the server on its own. `source_message_id` is the message it
      // was saved from, if any (a suggestion is offered once per message).
      `CREATE TABLE memories (
        id TEXT PRIMARY KEY,
        user_id TEXT NOT NULL REFERENCES users(id),
        content TEXT NOT NULL,
        enabled BOOLEAN NOT NULL DEFAULT TRUE,
        source_message_id TEXT,
        created_at BIGINT NOT NULL,
        updated_at BIGINT NOT NULL
      )`,
      `CREATE INDEX memories_user ON memories(user_id, created_at)`,
      // The memories an answer was given (JSON [{id, content}] as they were then), shown with the answer.
      `ALTER TABLE messages ADD COLUMN memories TEXT`,
    ],
  },
  {
    version: 25,
    name: 'folders, pinned and archived chats',
    sql: [
      // Organising the chat history (lib/conversations/organise.ts): a user's folders, and per conversation its
      // folder (NULL: none), when it was pinned and when archived (NULL: not). Deleting a folder moves its chats out.
      `CREATE TABLE folders (
        id TEXT PRIMARY KEY,
        user_id TEXT NOT NULL REFERENCES users(id),
        name TEXT NOT NULL,
        created_at BIGINT NOT NULL
      )`,
      `CREATE INDEX folders_user ON folders(user_id, created_at)`,
      `ALTER TABLE conversations ADD COLUMN folder_id TEXT`,
      `ALTER TABLE conversations ADD COLUMN pinned_at BIGINT`,
      `ALTER TABLE conversations ADD COLUMN archived_at BIGINT`,
      `CREATE INDEX conversations_user_folder ON conversations(user_id, folder_id, updated_at)`,
    ],
  },
  {
    version: 26,
    name: 'idempotency keys for every billed POST',
    sql: [
      // The JSON-RPC proxy's claims, made general: one row per (account, Idempotency-Key), claimed by the first request
      // (state pending, owner = its request id), then the answer it was billed for (state done), replayed for 24 hours.
      // What an answer holds is its caller's (lib/http/billed.ts, lib/crypto-rpc/proxy.ts). Claims in the old table
      // expire within a day; one replayed after the upgrade runs again (a signed transaction sent twice lands once).
      `CREATE TABLE idempotency_keys (
        account_id TEXT NOT NULL REFERENCES accounts(id),
        idem_key TEXT NOT NULL,
        request_hash TEXT NOT NULL,
        state TEXT NOT NULL,
        owner TEXT NOT NULL,
        answer TEXT,
        created_at BIGINT NOT NULL,
        updated_at BIGINT NOT NULL,
        PRIMARY KEY (account_id, idem_key)
      )`,
      `CREATE INDEX idempotency_keys_created ON idempotency_keys(created_at)`,
      `DROP TABLE rpc_idempotency`,
    ],
  },
  {
    version: 27,
    name: 'an append-only ledger of every movement that is not a charge',
    sql: [
      // Charges are the usage rows (one per request, written with the balance change). Every other movement of an
      // account's credit is an entry here, written in the same transaction as the change: grants, top-ups, refunds,
      // operator corrections (signed, with their reason), the DIEM allowance (a day's refill, a new daily amount),
      // and, at no amount, the release of a hold that was never charged. Entries are never changed or removed: a
      // correction is a new entry. So balance = entries − the usage rows' original charges (usd + refunded_usd),
      // which `lagoon ledger reconcile` checks for every account.
      `CREATE TABLE ledger_entries (
        id TEXT PRIMARY KEY,
        account_id TEXT NOT NULL,
        kind TEXT NOT NULL,
        usd BIGINT NOT NULL DEFAULT 0,
        diem BIGINT NOT NULL DEFAULT 0,
        held_usd BIGINT NOT NULL DEFAULT 0,
        held_diem BIGINT NOT NULL DEFAULT 0,
        ref TEXT,
        note TEXT,
        created_at BIGINT NOT NULL
      )`,
      `CREATE INDEX ledger_entries_account ON ledger_entries(account_id, created_at)`,
      {
        sqlite: `CREATE TRIGGER ledger_entries_no_update BEFORE UPDATE ON ledger_entries BEGIN SELECT RAISE(ABORT, 'ledger entries are append-only'); END`,
        postgres: `CREATE FUNCTION ledger_entries_append_only() RETURNS trigger LANGUAGE plpgsql AS $fn$ BEGIN RAISE EXCEPTION 'ledger entries are append-only'; END $fn$`,
      },
      {
        sqlite: `CREATE TRIGGER ledger_entries_no_delete BEFORE DELETE ON ledger_entries BEGIN SELECT RAISE(ABORT, 'ledger entries are append-only'); END`,
        postgres: `CREATE TRIGGER ledger_entries_append_only BEFORE UPDATE OR DELETE ON ledger_entries FOR EACH ROW EXECUTE FUNCTION ledger_entries_append_only()`,
      },
      // What each account had before there were entries, so the identity holds from here on: its balance plus every
      // charge made so far (refunded or not; a refund made before this has no entry of its own).
      `INSERT INTO ledger_entries (id, account_id, kind, usd, diem, note, created_at)
        SELECT 'opening-' || a.id, a.id, 'opening',
          a.usd + COALESCE((SELECT SUM(u.usd + COALESCE(u.refunded_usd, 0)) FROM usage u WHERE u.account_id = a.id), 0),
          a.diem + COALESCE((SELECT SUM(u.diem + COALESCE(u.refunded_diem, 0)) FROM usage u WHERE u.account_id = a.id), 0),
          'balance when the ledger began', a.created_at
        FROM accounts a`,
    ],
  },
  {
    version: 28,
    name: 'signed receipts: the balance after each charge, the hashes of billed requests, the receipt keys',
    sql: [
      // The balance right after the charge, as its settlement's locked row had it (the receipt's balance_after).
      `ALTER TABLE usage ADD COLUMN usd_after BIGINT`,
      `ALTER TABLE usage ADD COLUMN diem_after BIGINT`,
      // A billed /api/v1 request's body and answer, hashed as they passed (lib/http/billed.ts).
      `CREATE TABLE receipts (
        request_id TEXT PRIMARY KEY,
        account_id TEXT NOT NULL,
        request_sha256 TEXT NOT NULL,
        response_sha256 TEXT NOT NULL,
        created_at BIGINT NOT NULL
      )`,
      // Ed25519 keys as JWKs, one per LAGOON_RECEIPT_KEY_DAYS period; old ones stay published (lib/billing/receipts.ts).
      `CREATE TABLE receipt_keys (
        id TEXT PRIMARY KEY,
        public_jwk TEXT NOT NULL,
        private_jwk TEXT NOT NULL,
        created_at BIGINT NOT NULL
      )`,
    ],
  },
  {
    version: 31,
    name: 'password resets by mail, TOTP and recovery codes, passkeys',
    sql: [
      // Only the SHA-256 of a reset token is kept (like sessions): a leaked table cannot reset anyone's password.
      `CREATE TABLE password_resets (
        token_hash TEXT PRIMARY KEY,
        user_id TEXT NOT NULL REFERENCES users(id),
        created_at BIGINT NOT NULL,
        expires_at BIGINT NOT NULL,
        used_at BIGINT
      )`,
      `CREATE INDEX password_resets_user ON password_resets(user_id)`,
      // TOTP second factor: the secret sealed under the secrets key (lib/db/secret-box.ts), the one being enrolled
      // until its first code is confirmed, and the last time step used (a code works once).
      `ALTER TABLE users ADD COLUMN totp_secret TEXT`,
      `ALTER TABLE users ADD COLUMN totp_pending TEXT`,
      `ALTER TABLE users ADD COLUMN totp_last_step BIGINT`,
      // One-time recovery codes, stored as SHA-256.
      `CREATE TABLE recovery_codes (
        user_id TEXT NOT NULL REFERENCES users(id),
        code_hash TEXT NOT NULL,
        used_at BIGINT,
        PRIMARY KEY (user_id, code_hash)
      )`,
      // A password accepted, a second factor still owed: the sign-in's second step presents this token's secret.
      `CREATE TABLE sign_in_challenges (
        token_hash TEXT PRIMARY KEY,
        user_id TEXT NOT NULL REFERENCES users(id),
        expires_at BIGINT NOT NULL,
        attempts INTEGER NOT NULL DEFAULT 0
      )`,
      // Passkeys (WebAuthn): the credential id and COSE public key (base64url), the signature counter.
      `CREATE TABLE passkeys (
        id TEXT PRIMARY KEY,
        user_id TEXT NOT NULL REFERENCES users(id),
        public_key TEXT NOT NULL,
        counter BIGINT NOT NULL DEFAULT 0,
        transports TEXT NOT NULL DEFAULT '',
        name TEXT NOT NULL DEFAULT '',
        created_at BIGINT NOT NULL,
        last_used_at BIGINT
      )`,
      `CREATE INDEX passkeys_user ON passkeys(user_id)`,
      // WebAuthn challenges handed out and not yet answered (single use, short-lived); user_id only for enrolment.
      `CREATE TABLE webauthn_challenges (
        challenge TEXT PRIMARY KEY,
        kind TEXT NOT NULL,
        user_id TEXT,
        expires_at BIGINT NOT NULL
      )`,
      // Whether the session began with a second factor (TOTP step or passkey): LAGOON_OPERATOR_REQUIRE_2FA needs it.
      `ALTER TABLE sessions ADD COLUMN second_factor BOOLEAN NOT NULL DEFAULT FALSE`,
      // Email verification: when the address was proved, and the mailed links (SHA-256 only; for the address they
      // were sent to, so a link does not verify an address changed since).
      `ALTER TABLE users ADD COLUMN email_verified_at BIGINT`,
      `CREATE TABLE email_verifications (
        token_hash TEXT PRIMARY KEY,
        user_id TEXT NOT NULL REFERENCES users(id),
        email TEXT NOT NULL,
        expires_at BIGINT NOT NULL
      )`,
    ],
  },
  {
    version: 32,
    name: "a key's model allow-list",
    sql: [
      // The only models a key may run (JSON array of catalogue ids; NULL: any), checked at admission like
      // model_privacy. Budgets that reset weekly need no column: limit_period takes WEEK.
      `ALTER TABLE api_keys ADD COLUMN allowed_models TEXT`,
    ],
  },
  {
    version: 38,
    name: 'x402 payments made for one request',
    sql: [
      // x402 per request (lib/wallet/per-request.ts): the request a payment was made for, and the scheme it was
      // offered under (`exact` or `upto`); NULL request_id: a top-up.
      `ALTER TABLE x402_topups ADD COLUMN request_id TEXT`,
      `ALTER TABLE x402_topups ADD COLUMN scheme TEXT`,
    ],
  },
  {
    version: 37,
    name: 'alerts: thresholds, channels, crossings and deliveries',
    sql: [
      // An account owner's alerts: the low-balance thresholds (micro-units; NULL: off), whether the keys' budgets
      // (their consumption limits) alert at 50/80/100 %, and the channels: an email address and a webhook URL with
      // its signing secret (sealed under the secrets key when there is one).
      `CREATE TABLE alert_settings (
        account_id TEXT PRIMARY KEY REFERENCES accounts(id),
        email TEXT,
        webhook_url TEXT,
        webhook_secret TEXT NOT NULL,
        low_usd BIGINT,
        low_diem BIGINT,
        key_budgets BOOLEAN NOT NULL DEFAULT TRUE,
        updated_at BIGINT NOT NULL
      )`,
      // What each subject (a balance, a key's budget in a currency) last alerted: the level reached (0: armed) in
      // its period. A crossing is one compare-and-set on this row, so it fires once across instances.
      `CREATE TABLE alert_state (
        account_id TEXT NOT NULL REFERENCES accounts(id),
        subject TEXT NOT NULL,
        level INTEGER NOT NULL DEFAULT 0,
        period TEXT NOT NULL DEFAULT '',
        updated_at BIGINT NOT NULL,
        PRIMARY KEY (account_id, subject)
      )`,
      // One row per event and channel: the outbox the delivery workers lease from (times: the database's clock).
      `CREATE TABLE alert_deliveries (
        id TEXT PRIMARY KEY,
        account_id TEXT NOT NULL REFERENCES accounts(id),
        event_id TEXT NOT NULL,
        event TEXT NOT NULL,
        channel TEXT NOT NULL,
        target TEXT NOT NULL,
        payload TEXT NOT NULL,
        status TEXT NOT NULL DEFAULT 'pending',
        attempts INTEGER NOT NULL DEFAULT 0,
        next_attempt_at BIGINT NOT NULL,
        lease_owner TEXT,
        lease_until BIGINT,
        response_code INTEGER,
        last_error TEXT,
        created_at BIGINT NOT NULL,
        updated_at BIGINT NOT NULL,
        UNIQUE (event_id, channel)
      )`,
      `CREATE INDEX alert_deliveries_due ON alert_deliveries(status, next_attempt_at)`,
      `CREATE INDEX alert_deliveries_account ON alert_deliveries(account_id, created_at)`,
    ],
  },
  {
    version: 33,
    name: 'read-only share links of a chat',
    sql: [
      // A snapshot of one branch, public under its token (lib/conversations/shares.ts): the title, the model and the
      // messages as they read when it was shared (JSON, images' bytes included), nothing of the account. The token is
      // kept as is (the owner copies the link again from the list); revoking deletes the row and its snapshot.
      `CREATE TABLE shares (
        token TEXT PRIMARY KEY,
        user_id TEXT NOT NULL REFERENCES users(id),
        conversation_id TEXT NOT NULL,
        leaf_id TEXT NOT NULL,
        title TEXT NOT NULL,
        model_id TEXT,
        messages TEXT NOT NULL,
        message_count INTEGER NOT NULL,
        created_at BIGINT NOT NULL
      )`,
      `CREATE INDEX shares_user ON shares(user_id, created_at)`,
    ],
  },
  {
    version: 36,
    name: 'single sign-on identities, wallets linked to email users',
    sql: [
      // An OpenID Connect identity (the issuer's iss and sub) and the user it signs in as. The email is the one the
      // provider verified when the identity was linked (shown, never used to find the user again).
      `CREATE TABLE user_identities (
        issuer TEXT NOT NULL,
        subject TEXT NOT NULL,
        user_id TEXT NOT NULL REFERENCES users(id),
        email TEXT NOT NULL DEFAULT '',
        created_at BIGINT NOT NULL,
        PRIMARY KEY (issuer, subject)
      )`,
      `CREATE INDEX user_identities_user ON user_identities(user_id)`,
      // A single sign-on started and not yet finished: the SHA-256 of its state (the browser holds the state in a
      // cookie), the nonce the ID token must carry, the PKCE verifier and where to go after; link_user_id when a
      // signed-in user links the provider from Settings. Single use, short-lived.
      `CREATE TABLE sso_logins (
        state_hash TEXT PRIMARY KEY,
        nonce TEXT NOT NULL,
        code_verifier TEXT NOT NULL,
        next_path TEXT NOT NULL,
        link_user_id TEXT,
        expires_at BIGINT NOT NULL
      )`,
      // A wallet an email user linked (lib/users/wallet-link.ts): signing in with it reaches this user, and the wallet
      // row's account is this user's, so both ways share one balance. wallet_id stays the mark of a wallet-only user.
      `ALTER TABLE users ADD COLUMN linked_wallet_id TEXT REFERENCES wallets(id)`,
      `CREATE UNIQUE INDEX users_linked_wallet ON users(linked_wallet_id)`,
    ],
  },
  {
    version: 34,
    name: 'the prompt library, the operator default model',
    sql: [
      // Saved prompts (lib/prompts): a user's own (user_id set), or shared with everyone by the operator (user_id
      // NULL, managed only through the operator's routes). Only what the user typed is kept: a title and the text.
      `CREATE TABLE prompts (
        id TEXT PRIMARY KEY,
        user_id TEXT REFERENCES users(id),
        title TEXT NOT NULL,
        content TEXT NOT NULL,
        created_at BIGINT NOT NULL,
        updated_at BIGINT NOT NULL
      )`,
      `CREATE INDEX prompts_user ON prompts(user_id, title)`,
      // Server-wide choices the operator makes in the app, one row each (lib/catalogue/default-model.ts:
      // 'default_model', the model new chats start on). Read per request, so every instance agrees at once.
      `CREATE TABLE app_settings (
        name TEXT PRIMARY KEY,
        value TEXT NOT NULL,
        updated_at BIGINT NOT NULL
      )`,
    ],
  },
  {
    version: 41,
    name: "x402 auto top-up: a wallet's mandate and its signed authorizations",
    sql: [
      // A wallet's standing order (lib/wallet/auto-topup.ts): when its account's USD falls below threshold, settle
      // the next authorization of amount. period_cap/period_ms: at most that much auto top-up per rolling period
      // (NULL: the authorizations' sum is the only cap). busy_claim/busy_until: the one attempt at a time, across
      // instances; retry_after: a refused settlement (e.g. the wallet short of USDC) is not retried before then.
      `CREATE TABLE auto_topups (
        wallet_id TEXT PRIMARY KEY REFERENCES wallets(id),
        account_id TEXT NOT NULL REFERENCES accounts(id),
        threshold BIGINT NOT NULL,
        amount BIGINT NOT NULL,
        period_cap BIGINT,
        period_ms BIGINT,
        busy_claim TEXT,
        busy_until BIGINT,
        retry_after BIGINT,
        last_error TEXT,
        created_at BIGINT NOT NULL,
        updated_at BIGINT NOT NULL
      )`,
      `CREATE INDEX auto_topups_account ON auto_topups(account_id)`,
      // Each pre-signed EIP-3009 authorization: payment is the x402 payload (sealed under the secrets key when there is
      // one), never sent back, and cleared once used or discarded. status: ready → claimed (one attempt) → settled,
      // failed or expired; ready → revoked. topup_id: its x402_topups row (the credit and the statement line).
      `CREATE TABLE auto_topup_authorizations (
        id TEXT PRIMARY KEY,
        wallet_id TEXT NOT NULL REFERENCES wallets(id),
        seq INTEGER NOT NULL,
        nonce TEXT NOT NULL,
        amount BIGINT NOT NULL,
        valid_before BIGINT NOT NULL,
        payment TEXT,
        status TEXT NOT NULL,
        topup_id TEXT,
        tx_hash TEXT,
        error TEXT,
        created_at BIGINT NOT NULL,
        updated_at BIGINT NOT NULL,
        UNIQUE (wallet_id, nonce)
      )`,
      `CREATE INDEX auto_topup_authorizations_wallet ON auto_topup_authorizations(wallet_id, status, seq)`,
      // Which top-ups were auto top-ups (statements say so); NULL: paid by hand or per request.
      `ALTER TABLE x402_topups ADD COLUMN origin TEXT`,
    ],
  },
  {
    version: 39,
    name: 'teams: members and their roles, caps and model lists, invites, transfers, the active account',
    sql: [
      // A team is an account (its balance, keys and usage) with members (lib/teams): roles owner/admin/member, and per
      // member a spend cap in USD per period (NULL: none) and a model list (JSON; NULL: any). Read on every request
      // that acts for the team, never cached, so a removed member loses access at once on every instance.
      `CREATE TABLE team_members (
        account_id TEXT NOT NULL REFERENCES accounts(id),
        user_id TEXT NOT NULL REFERENCES users(id),
        role TEXT NOT NULL,
        cap_usd BIGINT,
        cap_period TEXT NOT NULL DEFAULT 'MONTH',
        allowed_models TEXT,
        created_at BIGINT NOT NULL,
        PRIMARY KEY (account_id, user_id)
      )`,
      `CREATE INDEX team_members_user ON team_members(user_id)`,
      // An invitation: only the SHA-256 of its link's token is kept; single use, until it expires. email: set when
      // it was mailed (shown to the team's admins), else NULL for a link passed on by hand.
      `CREATE TABLE team_invites (
        token_hash TEXT PRIMARY KEY,
        id TEXT NOT NULL UNIQUE,
        account_id TEXT NOT NULL REFERENCES accounts(id),
        role TEXT NOT NULL,
        email TEXT,
        created_by TEXT NOT NULL,
        created_at BIGINT NOT NULL,
        expires_at BIGINT NOT NULL,
        accepted_by TEXT,
        accepted_at BIGINT
      )`,
      `CREATE INDEX team_invites_account ON team_invites(account_id, created_at)`,
      // The member a key of a team acts for (the app's per-member key, and keys a member made): its usage is that
      // member's, and it works only while they are a member.
      `ALTER TABLE api_keys ADD COLUMN member_id TEXT`,
      // The account the session acts for when it is not the user's own (the account switcher; per session).
      `ALTER TABLE sessions ADD COLUMN active_account_id TEXT`,
      // A move of credit between a person's own account and a team's, keyed by the client's id so a retry moves
      // nothing twice; each side has its ledger entry ('transfer') written in the same transaction.
      `CREATE TABLE credit_transfers (
        id TEXT PRIMARY KEY,
        from_account_id TEXT NOT NULL REFERENCES accounts(id),
        to_account_id TEXT NOT NULL REFERENCES accounts(id),
        usd BIGINT NOT NULL,
        user_id TEXT NOT NULL,
        created_at BIGINT NOT NULL
      )`,
    ],
  },
  {
    version: 40,
    name: 'x402 upto: what finishes a claim after a crash',
    sql: [
      // An `upto` payment's payload and requirements (JSON, sealed under the secrets key when there is one), kept
      // while its claim is pending so the recovery sweep (lib/wallet/upto-recovery.ts) can settle what the request
      // was charged after the process that claimed it died; cleared once the claim is settled or failed.
      `ALTER TABLE x402_topups ADD COLUMN payment TEXT`,
    ],
  },
];
