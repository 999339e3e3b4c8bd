/* fuzz_gen_main.c - writes the case the pipeline harness would run.
 *
 * usage: fuzz_gen INPUT OUTDIR
 * Turns the bytes of INPUT (a fuzz corpus file or random bytes) into
 * OUTDIR/rules.graft and OUTDIR/model.relay with the generator of
 * fuzz_gen.h, so a case can be replayed through the graft binary, and
 * fuzz/differential.sh can compare graft run with graft compile --exe. */
#include <stdio.h>
#include <stdlib.h>

#include "fuzz_gen.h"

static int write_file(const char *dir, const char *name, const StrBuf *sb)
{
    StrBuf path = {0};
    strbuf_printf(&path, "%s/%s", dir, name);
    FILE *f = fopen(path.data, "wb");
    int ok = f && fwrite(sb->data, 1, sb->len, f) == sb->len;
    if (f && fclose(f) != 0)
        ok = 0;
    if (!ok)
        perror(path.data);
    strbuf_free(&path);
    return ok;
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fputs("usage: fuzz_gen INPUT OUTDIR\n", stderr);
        return 2;
    }
    FILE *f = fopen(argv[1], "rb");
    if (!f) {
        perror(argv[1]);
        return 2;
    }
    uint8_t buf[65536];
    size_t n = fread(buf, 1, sizeof buf, f);
    fclose(f);
    FuzzBytes in = {buf, n, 0};
    StrBuf rules = {0}, model = {0};
    fuzz_gen_rules(&in, &rules);
    fuzz_gen_model(&in, &model);
    int ok = write_file(argv[2], "rules.graft", &rules) &&
             write_file(argv[2], "model.relay", &model);
    strbuf_free(&rules);
    strbuf_free(&model);
    return ok ? 0 : 1;
}
