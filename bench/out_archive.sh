# out_archive.sh -- sourced by the bench scripts that run on the device
# machine. The device tool brings back at most 8 files of $OUT, by name:
# out_archive packs everything under $OUT into $OUT/0all.tgz (a name that
# sorts first), replaced whole each time, so a call that is cut short still
# returns what it had. Call it after each step.
out_archive() {
  tar czf "$OUT/.0all.tgz.part" --exclude=./0all.tgz --exclude=./.0all.tgz.part -C "$OUT" . 2>/dev/null &&
    mv -f "$OUT/.0all.tgz.part" "$OUT/0all.tgz"
}
