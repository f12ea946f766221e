/**
 * Tables that fit (issue 36): a record table wider than its region says so above it ("Scroll
 * sideways…", and a shadow on the side that has more), and each clipped third-party text gets
 * its whole text as its title and becomes focusable, so that a keyboard shows it too (CSS
 * unclips it on hover and focus). Measured again whenever the region changes size or scrolls.
 */
export function watchFit(region: HTMLElement, cue: HTMLElement): void {
  const update = () => {
    const wider = region.scrollWidth > region.clientWidth + 1;
    cue.hidden = !wider;
    region.classList.toggle(
      'more-right',
      wider && region.scrollLeft + region.clientWidth < region.scrollWidth - 1,
    );
    for (const text of region.querySelectorAll<HTMLElement>('td .third-party')) {
      // Hovered or focused, a text shows whole: leave it as it was measured before.
      if (text.matches(':hover, :focus')) continue;
      if (text.scrollWidth > text.clientWidth + 1) {
        text.tabIndex = 0;
        text.title = text.textContent ?? '';
      } else {
        text.removeAttribute('tabindex');
        text.removeAttribute('title');
      }
    }
  };
  new ResizeObserver(update).observe(region);
  region.addEventListener('scroll', update, { passive: true });
}
