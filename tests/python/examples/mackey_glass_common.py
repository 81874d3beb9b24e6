# SPDX-License-Identifier: Apache-2.0
"""Synthetic Mackey-Glass series for mackey_glass_lstm.py and mackey_glass_esn.py, in place of
NeuroBench's MackeyGlass data set (its .npy files are downloaded): the same equation (tau 17,
beta 0.2, gamma 0.1, n 10, constant past 0.7206597) integrated by Euler steps, sampled 75 points
per Lyapunov time (197), returned as MackeyGlass returns it: samples (bin_window=1, 1) and
targets (1,) in float64, with ind_train, ind_test, testtime_pts and pts_per_lyaptime; only
`lyaptimes` Lyapunov times for training and for testing (NeuroBench: 10 each)."""
import torch
from torch.utils.data import Dataset


class SyntheticMackeyGlass(Dataset):
    def __init__(self, tau=17, start_offset=0.0, lyaptimes=2, pts_per_lyaptime=75):
        self.pts_per_lyaptime = pts_per_lyaptime
        self.traintime_pts = lyaptimes * pts_per_lyaptime
        self.testtime_pts = lyaptimes * pts_per_lyaptime
        points = self.traintime_pts + self.testtime_pts + 1
        dt, every = 0.1, round(197 / pts_per_lyaptime / 0.1)
        lag = round(tau / dt)
        total = (int(start_offset) + points) * every + lag
        x = [0.7206597] * (lag + 1)
        for _ in range(total):
            past = x[-lag - 1]
            x.append(x[-1] + dt * (0.2 * past / (1 + past ** 10) - 0.1 * x[-1]))
        series = torch.tensor(x[lag + 1:], dtype=torch.float64)[::every]
        self.soln = series[int(start_offset):int(start_offset) + points].unsqueeze(-1)
        self.ind_train = torch.arange(0, self.traintime_pts)
        self.ind_test = torch.arange(self.traintime_pts, points - 1)

    def __len__(self):
        return len(self.soln) - 1

    def __getitem__(self, idx):
        if isinstance(idx, list) or (isinstance(idx, torch.Tensor) and idx.ndim > 0):
            sample = torch.stack([self.soln[i:i + 1, :] for i in idx])
        else:
            sample = self.soln[idx:idx + 1, :]
        return sample, self.soln[idx + 1, :]
