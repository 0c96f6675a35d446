// A new chat, optionally with a character (/?character=<slug>, from the characters page). The chat view moves to
// /c/<id> once the first message has created the conversation.
import { ChatView } from '@/components/chat/chat-view.tsx';

export default async function NewChatPage({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  const { character } = await searchParams;
  return <ChatView conversationId={null} characterSlug={typeof character === 'string' && character ? character : null} />;
}
