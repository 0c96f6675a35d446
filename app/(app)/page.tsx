// A new chat, optionally with a character (/?character=<slug>: links made elsewhere; the characters pages' "Start chat"
// creates the conversation at once instead). The chat view moves to /c/<id> once the first message has created it.
import { ChatView } from '@/components/chat/chat-view.tsx';

export default async function NewChatPage({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  const { character } = await searchParams;
  return <ChatView conversationId={null} characterSlug={typeof character === 'string' && character ? character : null} />;
}
