// One conversation. Keyed by id so switching chats starts the view afresh.
import { ChatView } from '@/components/chat/chat-view.tsx';

export default async function ConversationPage({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  return <ChatView key={id} conversationId={id} />;
}
