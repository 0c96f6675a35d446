// Forwards to the app backend (lib/app), which the server process built and published before Next started.
import { appBackend } from '@/lib/app/runtime.ts';

type Ctx = { params: Promise<{ id: string }> };

export const dynamic = 'force-dynamic';

export const GET = async (req: Request, ctx: Ctx) => appBackend().routes.streamMessage(req, await ctx.params);
