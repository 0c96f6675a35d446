'use client';
// "Edit this image": the picture with a canvas over it to paint a mask on (white where the edit applies; nothing
// painted edits it all), a prompt, and Apply, which calls POST /images/edit once; the result joins the gallery. Only
// what the server's edit model can do is offered: with a model that takes no mask, painting is off and says why.
// data-testid: image-editor, image-editor-mask, image-editor-prompt, image-editor-clear, image-editor-apply,
// image-editor-mask-off, image-editor-error.
import { useMutation } from '@tanstack/react-query';
import { type PointerEvent, useId, useRef, useState } from 'react';
import { useTranslations } from 'use-intl';
import { call } from '@/components/api/client.ts';
import { Alert } from '@/components/ui/alert.tsx';
import { Button } from '@/components/ui/button.tsx';
import { Dialog } from '@/components/ui/dialog.tsx';
import type { AppImage, AppImageModel, EditImageRequest } from '@/lib/images/wire.ts';

/** The brush, in the picture's pixels: a 24th of its width, at least 6. */
const brushRadius = (width: number) => Math.max(6, width / 24);

export interface EditSource {
  /** A gallery image… */
  sourceId?: string;
  /** …or a chat's picture as a data: URL. */
  image?: string;
  /** What to show: the gallery file or the data: URL. */
  url: string;
}

export function ImageEditor({
  source,
  model,
  onClose,
  onDone,
}: {
  source: EditSource;
  model: AppImageModel;
  onClose: () => void;
  onDone: (images: AppImage[]) => void;
}) {
  const t = useTranslations('imageEditor');
  const id = useId();
  const canvas = useRef<HTMLCanvasElement>(null);
  /** Where the stroke being painted last was, in the picture's pixels (null: no stroke). */
  const last = useRef<{ x: number; y: number } | null>(null);
  const [painted, setPainted] = useState(false);
  const [prompt, setPrompt] = useState('');
  const canMask = model.maskRefusal === null;
  const apply = useMutation({
    mutationFn: () => {
      const body: EditImageRequest = { prompt, model: model.id, ...(source.sourceId ? { sourceId: source.sourceId } : { image: source.image }) };
      if (painted && canvas.current) body.mask = canvas.current.toDataURL('image/png');
      return call('POST /images/edit', { body });
    },
    onSuccess: (r) => onDone(r.images),
  });

  const [size, setSize] = useState<{ width: number; height: number } | null>(null);
  /**
   * The canvas takes the picture's own pixel size once it loads (or at once, when it had loaded before), so the mask
   * lines up with it exactly whatever size it is shown at and whatever the screen's pixel ratio.
   */
  const fit = (img: HTMLImageElement | null) => {
    if (!img?.complete || !img.naturalWidth) return;
    const { naturalWidth: width, naturalHeight: height } = img;
    setSize((s) => (s?.width === width && s.height === height ? s : { width, height }));
  };
  const paint = (e: PointerEvent<HTMLCanvasElement>) => {
    const c = canvas.current;
    const ctx = c?.getContext('2d');
    if (!c || !ctx) return;
    // CSS pixels to the picture's, each axis on its own (the canvas is stretched over the picture as shown).
    const r = c.getBoundingClientRect();
    const p = { x: ((e.clientX - r.left) * c.width) / r.width, y: ((e.clientY - r.top) * c.height) / r.height };
    const radius = brushRadius(c.width);
    ctx.fillStyle = ctx.strokeStyle = '#ffffff';
    ctx.beginPath();
    const from = last.current;
    // A segment from the last point, so a fast stroke (few pointer events) paints a band rather than dots.
    if (from) {
      ctx.lineWidth = radius * 2;
      ctx.lineCap = 'round';
      ctx.moveTo(from.x, from.y);
      ctx.lineTo(p.x, p.y);
      ctx.stroke();
    } else {
      ctx.arc(p.x, p.y, radius, 0, Math.PI * 2);
      ctx.fill();
    }
    last.current = p;
    setPainted(true);
  };
  const clear = () => {
    const c = canvas.current;
    c?.getContext('2d')?.clearRect(0, 0, c.width, c.height);
    setPainted(false);
  };

  return (
    <Dialog
      open
      onClose={onClose}
      title={t('title')}
      description={t('description', { model: model.name })}
      testId="image-editor"
      className="w-[min(40rem,calc(100vw-2rem))]"
      footer={
        <>
          <Button variant="secondary" onClick={onClose}>
            {t('cancel')}
          </Button>
          <Button onClick={() => apply.mutate()} pending={apply.isPending} disabled={!prompt.trim()} data-testid="image-editor-apply">
            {t('apply')}
          </Button>
        </>
      }
    >
      <div className="relative overflow-hidden rounded-lg border border-border bg-muted">
        <img src={source.url} alt={t('picture')} ref={fit} onLoad={(e) => fit(e.currentTarget)} className="block h-auto w-full" />
        <canvas
          ref={canvas}
          aria-label={canMask ? t('maskLabel') : undefined}
          aria-hidden={canMask ? undefined : true}
          data-testid="image-editor-mask"
          width={size?.width}
          height={size?.height}
          data-brush-radius={size ? brushRadius(size.width) : undefined}
          className={`absolute inset-0 h-full w-full opacity-50 ${canMask ? 'cursor-crosshair touch-none' : 'pointer-events-none'}`}
          onPointerDown={(e) => {
            if (!canMask || !size) return;
            last.current = null;
            e.currentTarget.setPointerCapture(e.pointerId);
            paint(e);
          }}
          onPointerMove={(e) => last.current && paint(e)}
          onPointerUp={() => {
            last.current = null;
          }}
          onPointerCancel={() => {
            last.current = null;
          }}
        />
      </div>
      {canMask ? (
        <div className="flex flex-wrap items-center justify-between gap-2 text-sm text-muted-foreground">
          {/* Both texts hold their place, one hidden: the dialog is centred, so a line more or less would move the
              picture under the brush at the first dab. */}
          <span className="grid">
            <span className={`col-start-1 row-start-1 ${painted ? 'invisible' : ''}`}>{t('maskHint')}</span>
            <span className={`col-start-1 row-start-1 ${painted ? '' : 'invisible'}`}>{t('maskPainted')}</span>
          </span>
          <Button size="sm" variant="ghost" onClick={clear} disabled={!painted} data-testid="image-editor-clear">
            {t('clear')}
          </Button>
        </div>
      ) : (
        <p className="text-sm text-muted-foreground" data-testid="image-editor-mask-off">
          {t('maskOff', { reason: model.maskRefusal ?? '' })}
        </p>
      )}
      <label htmlFor={`${id}-prompt`} className="text-sm font-medium">
        {t('promptLabel')}
      </label>
      <textarea
        id={`${id}-prompt`}
        value={prompt}
        maxLength={7500}
        rows={2}
        onChange={(e) => {
          setPrompt(e.target.value);
          apply.reset();
        }}
        placeholder={t('promptPlaceholder')}
        className="w-full rounded-lg border border-input bg-background px-3 py-2 text-sm"
        data-testid="image-editor-prompt"
      />
      {apply.isError && <Alert data-testid="image-editor-error">{apply.error.message}</Alert>}
    </Dialog>
  );
}
