#!/bin/sh
# Regenerate the README gallery: the main figure of each lesson, exported by the command line at blog
# size (1200×675, light theme), in the order of the course. Run from anywhere: sh docs/gallery/make.sh
set -eu
cd "$(dirname "$0")/../.."
out=docs/gallery
export_png() {  # figure name, file name, then figure parameters
    name=$1 file=$2
    shift 2
    python -m posviz export "$name" "$@" --width 1200 --height 675 -o "$out/$file.png"
}
export_png intro_binary_vs_sinusoid 1_from_integers_to_sinusoids
export_png sinusoidal_heatmap 2_sinusoidal
export_png rope_angle_heatmap 3_rope
export_png scaling_wavelengths 4_context_extension
export_png patch_channels 5_2d_encodings
export_png bias_distance 6_distance_biases
export_png gaussian_attention 7_gaussian_kernel_rope
export_png cope_gates_positions 8_cope
