// official_verify.cc - the official FlatBuffers C++ Verifier as a judge for
// the interop test: exits 0 if every FILE given verifies as a sweep
// Message (with the file identifier), 1 otherwise. "sp" before the files
// switches to size-prefixed verification. Built at test time against the
// header flatc generated from protocol/sweep.fbs.
#include <cstdio>
#include <cstring>
#include <vector>

#include "sweep_generated.h"

int main(int argc, char **argv)
{
    bool sp = false;
    int bad = 0;
    for (int i = 1; i < argc; i++) {
        if (std::strcmp(argv[i], "sp") == 0) {
            sp = true;
            continue;
        }
        std::FILE *f = std::fopen(argv[i], "rb");
        if (!f) {
            std::fprintf(stderr, "official_verify: cannot open %s\n", argv[i]);
            return 2;
        }
        std::vector<uint8_t> buf;
        uint8_t chunk[4096];
        size_t n;
        while ((n = std::fread(chunk, 1, sizeof chunk, f)) > 0)
            buf.insert(buf.end(), chunk, chunk + n);
        std::fclose(f);
        // The verifier checks alignment against addresses: keep the data in
        // 8-aligned storage (a vector's allocation is).
        flatbuffers::Verifier v(buf.data(), buf.size());
        bool ok = sp ? sweep::wire::VerifySizePrefixedMessageBuffer(v)
                     : sweep::wire::VerifyMessageBuffer(v);
        if (!ok) {
            std::fprintf(stderr, "official_verify: %s: REFUSED\n", argv[i]);
            bad++;
        }
    }
    return bad ? 1 : 0;
}
