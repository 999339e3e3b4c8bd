#!/bin/sh
# deep_chain.sh N C: a synthetic model of N nn.conv2d -> nn.batch_norm
# layers on C channels of 4 x 4, in residual blocks of two as a ResNet's:
# y = relu(x + bn(conv(relu(bn(conv(x)))))); N even.  Every weight and
# statistic is a parameter, so graft run --verify draws them
# (note [model values], src/runtime/verify_model.h).  tests/run_verify.sh.
n=$1 c=$2
awk -v n="$n" -v c="$c" 'BEGIN {
    printf "def @main(%%x: Tensor[(1, %d, 4, 4), float32]", c
    for (i = 0; i < n; i++)
        printf ", %%w%d: Tensor[(%d, %d, 3, 3), float32], %%g%d: Tensor[(%d), float32], " \
               "%%b%d: Tensor[(%d), float32], %%m%d: Tensor[(%d), float32], " \
               "%%v%d: Tensor[(%d), float32]", i, c, c, i, c, i, c, i, c, i, c
    printf ") {\n"
    prev = "%x"; t = 0
    for (i = 0; i < n; i++) {
        if (i % 2 == 0)
            block = prev
        printf "  %%%d = nn.conv2d(%s, %%w%d, padding=[1, 1, 1, 1]);\n", t, prev, i
        printf "  %%%d = nn.batch_norm(%%%d, %%g%d, %%b%d, %%m%d, %%v%d);\n", t + 1, t, i, i, i, i
        printf "  %%%d = %%%d.0;\n", t + 2, t + 1
        if (i % 2 == 0) {
            printf "  %%%d = nn.relu(%%%d);\n", t + 3, t + 2
            prev = "%" (t + 3); t += 4
        } else {
            printf "  %%%d = add(%s, %%%d);\n", t + 3, block, t + 2
            if (i < n - 1)
                printf "  %%%d = nn.relu(%%%d);\n", t + 4, t + 3
            else
                printf "  nn.relu(%%%d)\n", t + 3
            prev = "%" (t + 4); t += 5
        }
    }
    printf "}\n"
}'
