/*
 * smooth_plot.c - draws what sweep_smooth (smooth.h) does to one
 * correction, as an SVG on stdout (docs/smoothing.svg is its output).
 *
 * A player runs along x at 5 m/s, drawn at 60 frames a second. Half a
 * second in, an answer says it is 0.5 m to the side of where the client
 * predicted (ack.shift = (0, -0.5, 0)): the prediction jumps there at once,
 * and the drawn player glides after it with a half-life of 100 ms. The
 * picture plots the sideways position against time: the predicted one
 * (the authoritative state the client moves from, a step), the drawn one,
 * and the frame marks.
 *
 *     build/examples/smooth_plot > smoothing.svg
 */
#include <stdio.h>

#include "client-sdk/smooth.h"

#define FRAMES 90
#define JUMP_AT 30

int main(void)
{
    const double dt = 1.0 / 60.0, half_life = 0.1;
    sweep_smooth sm;
    sweep_smooth_init(&sm, half_life, 2.0);
    double predicted[FRAMES], shown[FRAMES];
    for (int f = 0; f < FRAMES; f++) {
        sweep_vec3 p = sweep_v3(5.0 * dt * f, f < JUMP_AT ? 0.0 : -0.5, 0.0);
        if (f == JUMP_AT) {
            sweep_predict_ack ack = {.found = 1, .mismatch = 1, .shift = sweep_v3(0.0, -0.5, 0.0), .shift_len = 0.5};
            sweep_smooth_correct(&sm, &ack);
        }
        predicted[f] = p.y;
        shown[f] = sweep_smooth_shown(&sm, p, f ? dt : 0.0).y;
    }
    /* 0 .. 1.5 s across 600 px; +0.1 .. -0.6 m down 280 px. */
    const double W = 600, H = 280, L = 70, T = 40;
#define X(f) (L + (double)(f) / (FRAMES - 1) * W)
#define Y(v) (T + (0.1 - (v)) / 0.7 * H)
    printf("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" font-family=\"sans-serif\" "
           "font-size=\"13\">\n",
           L + W + 30, T + H + 70);
    printf("<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n");
    printf("<text x=\"%.0f\" y=\"22\">One correction of 0.5 m, drawn with sweep_smooth (half-life 100 ms, 60 "
           "frames/s)</text>\n",
           L);
    for (int i = 0; i <= 7; i++) {
        double v = 0.1 - 0.1 * i;
        printf("<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"#ddd\"/>", L, L + W, Y(v), Y(v));
        printf("<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">%.1f</text>\n", L - 6, Y(v) + 4, v + 0.0);
    }
    for (int s = 0; s <= 3; s++) {
        double x = L + s * 0.5 / 1.5 * W;
        printf("<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"#ddd\"/>", x, x, T, T + H);
        printf("<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%.1f s</text>\n", x, T + H + 18, s * 0.5);
    }
    printf("<text x=\"14\" y=\"%.1f\" transform=\"rotate(-90 14 %.1f)\" text-anchor=\"middle\">sideways "
           "position (m)</text>\n",
           T + H / 2, T + H / 2);
    printf("<polyline fill=\"none\" stroke=\"#d62728\" stroke-width=\"2\" stroke-dasharray=\"6 4\" points=\"");
    for (int f = 0; f < FRAMES; f++) {
        if (f == JUMP_AT)
            printf("%.1f,%.1f ", X(f), Y(predicted[f - 1]));
        printf("%.1f,%.1f ", X(f), Y(predicted[f]));
    }
    printf("\"/>\n<polyline fill=\"none\" stroke=\"#1f77b4\" stroke-width=\"2\" points=\"");
    for (int f = 0; f < FRAMES; f++)
        printf("%.1f,%.1f ", X(f), Y(shown[f]));
    printf("\"/>\n");
    for (int f = 0; f < FRAMES; f++)
        printf("<circle cx=\"%.1f\" cy=\"%.1f\" r=\"2\" fill=\"#1f77b4\"/>", X(f), Y(shown[f]));
    printf("\n<text x=\"%.1f\" y=\"%.1f\" fill=\"#d62728\">predicted (authoritative): jumps at the answer</text>\n",
           X(JUMP_AT) + 8, Y(-0.5) + 20);
    printf("<text x=\"%.1f\" y=\"%.1f\" fill=\"#1f77b4\">drawn: sweep_smooth_shown, one dot a frame</text>\n",
           X(JUMP_AT) + 40, Y(-0.25));
    printf("<text x=\"%.0f\" y=\"%.0f\">drawn minus predicted: %.3f m on the answer's frame, %.3f m %.0f ms "
           "later, %.4f m 500 ms later</text>\n",
           L, T + H + 50, shown[JUMP_AT] - predicted[JUMP_AT], shown[JUMP_AT + 6] - predicted[JUMP_AT + 6],
           half_life * 1000, shown[JUMP_AT + 30] - predicted[JUMP_AT + 30]);
    printf("</svg>\n");
    return 0;
}
