// One wallet in a list: its icon (as the wallet announced it) and name.
import { Button } from '@/components/ui/button.tsx';
import type { WalletOption } from '@/components/wallet/types.ts';

export function WalletButton({ option, pending, disabled, onClick }: { option: WalletOption; pending: boolean; disabled: boolean; onClick: () => void }) {
  return (
    <Button variant="secondary" size="lg" className="w-full justify-start" pending={pending} disabled={disabled} onClick={onClick} data-testid="wallet-option">
      {option.icon ? (
        // A data: URL from the wallet itself; an <img> never runs script from it.
        <img src={option.icon} alt="" width={20} height={20} className="size-5 rounded" />
      ) : (
        <span aria-hidden className="size-5 rounded bg-muted" />
      )}
      <span className="truncate">{option.name}</span>
      <span className="ml-auto text-xs font-normal text-muted-foreground">{option.chain === 'evm' ? 'Base' : 'Solana'}</span>
    </Button>
  );
}
