// Shown instead of the chat when its conversation cannot be loaded: gone (deleted, or never this user's) or a failure.
import Link from 'next/link';

export function ChatMissing({ notFound, retry }: { notFound: boolean; retry: () => void }) {
  return (
    <div role="alert" className="flex flex-1 flex-col items-center justify-center gap-3 p-6 text-center">
      <p className="text-lg font-semibold">{notFound ? 'This conversation does not exist or was deleted.' : 'The conversation could not be loaded.'}</p>
      {notFound ? (
        <Link href="/" className="text-primary underline">
          Start a new chat
        </Link>
      ) : (
        <button type="button" onClick={retry} className="text-primary underline">
          Try again
        </button>
      )}
    </div>
  );
}
