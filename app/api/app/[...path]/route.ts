// Any other /api/app path: the app API's JSON 404 (not Next's HTML page), so the client shows a clear error.
export const dynamic = 'force-dynamic';

const notFound = () =>
  Response.json({ error: 'No such app API route', code: 'NOT_FOUND' }, { status: 404, headers: { 'cache-control': 'no-store' } });

export const GET = notFound;
export const POST = notFound;
export const PUT = notFound;
export const PATCH = notFound;
export const DELETE = notFound;
